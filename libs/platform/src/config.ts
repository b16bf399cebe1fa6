import { z } from 'zod';

/** Raised at start when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(readonly variables: string[], message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Reads a service's configuration from the environment and validates it.
 * The schema's keys are the environment variable names, so every error names the bad variable.
 */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<z.ZodObject<S>> {
  const schema = z.object(shape);
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    const value = env[key];
    // An empty (or blank) variable means "not set", so defaults apply instead of failing on '' or
    // silently coercing '  ' to the number 0.
    input[key] = value === undefined || value.trim() === '' ? undefined : value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const variables = [...new Set(parsed.error.issues.map((i) => String(i.path[0])))];
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(variables, `Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Reusable field parsers for environment variables (which are always strings). */
export const env = {
  string: (def?: string) => (def === undefined ? z.string().min(1) : z.string().min(1).default(def)),
  optionalString: () => z.string().min(1).optional(),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(def),
  port: (def: number) => z.coerce.number().int().min(0).max(65535).default(def),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  url: (def?: string) => (def === undefined ? z.url() : z.url().default(def)),
  list: (def: string[] = []) =>
    z
      .string()
      .default(def.join(','))
      .transform((v) =>
        v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  oneOf: <T extends readonly [string, ...string[]]>(values: T, def: T[number]) => z.enum(values).default(def as never),
};

/** The config every service shares: where it runs, how it logs, how identity tokens are verified. */
export const commonConfigShape = {
  /** `production` turns off development conveniences (a subgraph's GraphQL introspection, test-only webhook ranges); the gateway's introspection is `GATEWAY_INTROSPECTION` alone. */
  NODE_ENV: env.oneOf(['production', 'development', 'test'] as const, 'development'),
  /** pino level of the JSON logs on stdout. */
  LOG_LEVEL: env.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  /** Algorithm of the identity JWTs that travel from the edge (or a back-office IdP) to the subgraphs. */
  JWT_ALGORITHM: env.oneOf(['HS256', 'HS384', 'HS512', 'RS256', 'ES256'] as const, 'HS256'),
  /** For HS*: the shared secret. For RS256/ES256: the PEM public key (verification only). */
  JWT_VERIFY_KEY: env.string(),
  /** While the JWT key rotates: the previous verify key, still accepted (never used to sign); unset afterwards. */
  JWT_VERIFY_KEY_PREVIOUS: env.optionalString(),
  /** `iss` every identity JWT must carry. */
  JWT_ISSUER: env.string('pf-platform'),
  /** `aud` every identity JWT must carry. */
  JWT_AUDIENCE: env.string('pf-graph'),
  /** Graceful shutdown budget: in-flight requests and consumers get this long before the process exits. */
  SHUTDOWN_TIMEOUT_MS: env.int(10_000, 0, 120_000),
};

/**
 * The key a service signs its own service JWT with (calls to other subgraphs): `JWT_SIGNING_KEY`,
 * or with a shared-secret algorithm (HS*) the verify key itself. With RS256/ES256 the verify key
 * is a public key, which cannot sign: the service refuses to start rather than start ready and
 * have every such call refused.
 */
export function serviceSigningKey(configured: string | undefined, jwt: { algorithm: string; key: string }, purpose: string): string {
  const key = configured ?? (jwt.algorithm.startsWith('HS') ? jwt.key : undefined);
  if (!key) throw new ConfigError(['JWT_SIGNING_KEY'], `Invalid configuration:\n  JWT_SIGNING_KEY: required with ${jwt.algorithm} (${purpose})`);
  return key;
}
