import { defineOperation } from '../../upstream/graphql';

export interface TeamFields {
  code: string;
  name: string;
  active: boolean;
}

/** `GET /team`: the caller's own team (the channel identity names it). */
export const EDGE_TEAM = defineOperation<Record<string, never>, { team: TeamFields | null }>(`
  query EdgeTeam {
    team { code name active }
  }
`);
