import { signIdentity, type Identity, type JwtSignOptions } from '../identity';

export interface GraphQLResponse<D = Record<string, any>> {
  data?: D | null;
  errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[];
}

/** A Problem as a subgraph carries it in `errors[0].extensions.problem`. */
export interface ProblemAnswer {
  problemType: string;
  detail: string;
  violations?: { property: string; message: string }[];
  extensions: Record<string, any>;
}

/** Calls to one subgraph as a given identity (a real JWT signed with the service's options). */
export interface GraphQLClient {
  gql<D = Record<string, any>>(identity: Identity | null, query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse<D>>;
  /** Like gql, but fails the test on any error and returns data. */
  ok<D = Record<string, any>>(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<D>;
  /** The single error's Problem (fails if the call did not fail with exactly one). */
  problem(identity: Identity, query: string, variables?: Record<string, unknown>): Promise<ProblemAnswer>;
}

export function graphqlClient(url: string, jwt: JwtSignOptions): GraphQLClient {
  async function gql<D>(identity: Identity | null, query: string, variables?: Record<string, unknown>) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (identity) headers.authorization = `Bearer ${signIdentity(identity, jwt)}`;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as GraphQLResponse<D>;
  }
  return {
    gql,
    async ok<D>(identity: Identity, query: string, variables?: Record<string, unknown>) {
      const res = await gql<D>(identity, query, variables);
      if (res.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
      return res.data as D;
    },
    async problem(identity: Identity, query: string, variables?: Record<string, unknown>) {
      const res = await gql(identity, query, variables);
      const problem = res.errors?.[0]?.extensions?.problem as ProblemAnswer | undefined;
      if (res.errors?.length !== 1 || !problem) throw new Error(`Expected one Problem, got ${JSON.stringify(res)}`);
      return problem;
    },
  };
}
