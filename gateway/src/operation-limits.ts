import type { ApolloServerPlugin } from '@apollo/server';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { getVariableValues, GraphQLError, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode, type ValidationContext, type ValidationRule } from 'graphql';
import { getComplexity, type ComplexityEstimatorArgs } from 'graphql-query-complexity';

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
  /**
   * Cost of an operation with its variables (operationCost): 2 per object field, 1 per scalar,
   * ×1.5 per level of nesting, a list field's by the page it asks for.
   */
  maxCost: number;
  /** Lexical tokens in the document, checked while parsing. */
  maxTokens: number;
}

/**
 * maxCost: a dashboard's page of 100 orders with lines, products, fulfilments, tracking and
 * history costs ≈ 11 800, a page of 100 products with their stock 2 300; 15 aliases of either, or
 * 5000 stock rows with their SKUs (47 500), are refused.
 */
export const DEFAULT_OPERATION_LIMITS: OperationLimits = { maxAliases: 15, maxDepth: 12, maxCost: 20_000, maxTokens: 50_000 };

/**
 * The validation rules that enforce the alias and depth limits (graphql-armor's, a maintained
 * implementation of exactly these checks). Their messages name the limit passed and its value.
 * The cost is checked once the variables are known (operationCostPlugin).
 */
export function operationLimitRules(limits: OperationLimits): ValidationRule[] {
  // By default a rule throws its error out of graphql's validate(), which Apollo would answer as
  // an internal error: reported instead, it is a validation error (400, GRAPHQL_VALIDATION_FAILED).
  const reporting = { exposeLimits: true, propagateOnRejection: false, onReject: [reportRefusal] };
  return [
    maxAliasesRule({ n: limits.maxAliases, ...reporting }),
    maxDepthRule({ n: limits.maxDepth, ignoreIntrospection: true, ...reporting }),
  ] as unknown as ValidationRule[];
}

/** Arguments that say how many items a list field answers (its page size). */
const PAGE_SIZE_ARGUMENTS = ['first', 'last', 'perPage'];

/**
 * A field's cost: 2 for an object, 1 for a scalar, plus 1.5 × what its selections cost, times the
 * page it asks for (its `first`, `last` or `perPage`, from a literal, a variable or the schema's
 * default; every list field of the schema declares its default page, so leaving the size out, or
 * sending null, counts as the page the service will answer). A static rule reads only literals: `first: $n` counted as 1 page item, so 15 aliases
 * of a 5000-row page passed a limit that refused one written `first: 5000`. Introspection is free
 * (it is off where it matters).
 */
export function fieldCost({ field, node, args, childComplexity }: ComplexityEstimatorArgs): number {
  if (field.name.startsWith('__')) return 0;
  const own = node.selectionSet ? 2 : 1;
  const page = Math.max(1, ...PAGE_SIZE_ARGUMENTS.map((name) => pageSize(args[name] ?? field.args.find((a) => a.name === name)?.defaultValue)));
  return (own + 1.5 * childComplexity) * page;
}

/** A page size as asked (an explicit null asks for the field's default, as its resolver reads it). */
function pageSize(value: unknown): number {
  return typeof value === 'number' && value > 0 ? value : 1;
}

/**
 * The cost of the operation with these variables, or undefined when the variables do not fit the
 * operation (execution refuses them, naming each).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown>): number | undefined {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && (operationName === undefined || d.name?.value === operationName),
  );
  if (!operation) return undefined;
  if (getVariableValues(schema, operation.variableDefinitions ?? [], variables).errors) return undefined;
  try {
    return getComplexity({ schema, query: document, variables, ...(operationName ? { operationName } : {}), estimators: [fieldCost] });
  } catch {
    // More nodes than the library evaluates (10 000, fragments expanded): over any limit.
    return Number.POSITIVE_INFINITY;
  }
}

/**
 * Refuses an operation whose cost with its variables is over `maxCost`, before any subgraph is
 * asked: 400 GRAPHQL_VALIDATION_FAILED, as the other limits. Only for callers `applies` names: the
 * operations people write (the back-office), not the fixed ones of our own services, whose
 * variables their own contracts bound (the REST edge asks 5000 stock rows in one page).
 */
export function operationCostPlugin<C extends object>(maxCost: number, applies: (context: C) => boolean): ApolloServerPlugin<C> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, contextValue }) {
          if (!applies(contextValue)) return;
          const cost = operationCost(schema, document, request.operationName ?? undefined, (request.variables ?? {}) as Record<string, unknown>);
          if (cost !== undefined && cost > maxCost) {
            throw new GraphQLError(`Query Cost limit of ${maxCost} exceeded, found ${Number.isFinite(cost) ? cost : 'more'}.`, {
              extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } },
            });
          }
        },
      };
    },
  };
}

/** The rule's refusal as a validation error of the operation (without the rules' "Syntax Error: " prefix: it is not one). */
function reportRefusal(context: ValidationContext | null, error: GraphQLError): void {
  context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')));
}
