import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * How big an operation the gateway plans and runs. A 2 MB body holds tens of thousands of aliases
 * of one costly field (each a full query of a subgraph's database) or a document nested thousands
 * deep; these bounds refuse such an operation at validation, before any subgraph is asked, with
 * room above what the back-office's dashboards send.
 */
export interface OperationLimits {
  /** Aliases in one operation (fragments counted where they are spread). */
  maxAliases: number;
  /** Depth of field selections. */
  maxDepth: number;
  /** graphql-armor's static cost: 2 per object field, 1 per scalar, growing with depth. */
  maxCost: number;
  /** Lexical tokens in the document, checked while parsing. */
  maxTokens: number;
}

export const DEFAULT_OPERATION_LIMITS: OperationLimits = { maxAliases: 15, maxDepth: 12, maxCost: 5000, maxTokens: 50_000 };

/**
 * The validation rules that enforce the limits (graphql-armor's, a maintained implementation of
 * exactly these checks). Their messages name the limit passed and its value.
 */
export function operationLimitRules(limits: OperationLimits): ValidationRule[] {
  // By default a rule throws its error out of graphql's validate(), which Apollo would answer as
  // an internal error: reported instead, it is a validation error (400, GRAPHQL_VALIDATION_FAILED).
  const reporting = { exposeLimits: true, propagateOnRejection: false, onReject: [reportRefusal] };
  return [
    maxAliasesRule({ n: limits.maxAliases, ...reporting }),
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, ...reporting }),
    costLimitRule({ maxCost: limits.maxCost, ignoreIntrospection: true, ...reporting }),
  ] as unknown as ValidationRule[];
}

/** The rule's refusal as a validation error of the operation (without the rules' "Syntax Error: " prefix: it is not one). */
function reportRefusal(context: ValidationContext | null, error: GraphQLError): void {
  context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')));
}
