import {
  getNamedType, isInputObjectType, Kind, specifiedRules, ValuesOfCorrectTypeRule,
  type ObjectFieldNode, type ValidationContext, type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fixedFieldReason } from '../domain/fixed-fields.js';
import { appError } from '../errors.js';

/**
 * graphql-js's ValuesOfCorrectTypeRule, except that a field the client may not send in a literal input
 * (`updatePet(input: { status: sold })`) is refused saying why, as the same field sent in a variable is
 * (graphql/coerce.ts). The field is known from the rule's own place in the document, not its message.
 */
const explainedValuesRule: ValidationRule = (context) => {
  const explaining = Object.create(context) as ValidationContext;
  explaining.reportError = (error) => {
    const node = error.nodes?.[0] as ObjectFieldNode | undefined;
    const parent = getNamedType(context.getParentInputType());
    const reason = node?.kind === Kind.OBJECT_FIELD && isInputObjectType(parent) && !Object.hasOwn(parent.getFields(), node.name.value)
      ? fixedFieldReason(parent.name, node.name.value) : undefined;
    context.reportError(reason
      ? appError('BAD_REQUEST', `Field "${node!.name.value}" is not defined by type "${parent!.name}": ${reason}.`, { nodes: node })
      : error);
  };
  return ValuesOfCorrectTypeRule(explaining);
};

const explained = (rule: ValidationRule) => (rule === ValuesOfCorrectTypeRule ? explainedValuesRule : rule);

/** Validation with the explained rule in place of graphql-js's own; yoga passes the same rule list each time. */
export function useExplainedFixedFields(): Plugin {
  const lists = new WeakMap<readonly ValidationRule[], readonly ValidationRule[]>();
  const swapped = (rules: readonly ValidationRule[]) => {
    let found = lists.get(rules);
    if (!found) lists.set(rules, found = rules.map(explained));
    return found;
  };
  type Validate = Parameters<NonNullable<Plugin['onValidate']>>[0]['validateFn'];
  const wrapped = new WeakMap<Validate, Validate>();
  return {
    onValidate({ validateFn, setValidationFn }) {
      let validate = wrapped.get(validateFn);
      if (!validate) {
        validate = (schema, document, rules = specifiedRules, ...rest) => validateFn(schema, document, swapped(rules), ...rest);
        wrapped.set(validateFn, validate);
      }
      setValidationFn(validate);
    },
  };
}
