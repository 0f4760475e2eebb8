import { builder } from './builder.js';

/** A GraphQL enum from one of the domain's status lists, each value with its description. */
export function statusEnum<T extends string>(name: string, description: string, values: Readonly<Record<T, string>>) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(Object.entries(values).map(([value, about]) => [value, { value, description: about }])) as
      Record<T, { value: T; description: string }>,
  });
}
