import { graphql } from 'relay-runtime';

/**
 * What a Relay frontend writes against the service, compiled by the real relay-compiler in
 * test/contract/relay.test.ts with relay.config.json beside it: a refetchable fragment on Pet (which
 * needs the Node interface and Query.node), a list of pets, and a pet and an order side by side.
 * Never run itself: the compiler reads the tags, the test runs what it writes.
 */

export const petCard = graphql`
  fragment PetStore_pet on Pet @refetchable(queryName: "PetStorePetRefetchQuery") {
    id
    name
    status
  }
`;

export const petsQuery = graphql`
  query PetStorePetsQuery {
    pets(limit: 100) {
      ...PetStore_pet
    }
  }
`;

export const sameIdQuery = graphql`
  query PetStoreSameIdQuery($pet: ID!, $order: ID!) {
    pet: node(id: $pet) {
      ... on Pet {
        id
        name
      }
    }
    order: node(id: $order) {
      ... on Order {
        id
        status
        pet {
          id
          name
        }
      }
    }
  }
`;
