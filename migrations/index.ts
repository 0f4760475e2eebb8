import { CreatePets1763683200000 } from './1763683200000-CreatePets.js';

/** Every migration, oldest first. A database that has run one not listed here is newer than this build. */
export const MIGRATIONS = [CreatePets1763683200000];
