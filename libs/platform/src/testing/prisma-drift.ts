import { readFile } from 'node:fs/promises';
import pg from 'pg';

/**
 * Schema drift check for services whose tables come from plain SQL migrations while the code
 * reads them through Prisma: compares the datamodel of `schema.prisma` with what the migrations
 * actually built in Postgres, so a test fails the moment the two disagree.
 *
 * The generated Prisma 7 client (`prisma-client` generator) carries no DMMF with types and
 * nullability, and the CLI's schema engine cannot run on our build machines, so the datamodel is
 * read from the schema file by the small parser below. It understands what our schemas use:
 * models, enums, scalar and list fields, `?`, `@id`, `@unique`, `@default`, `@map`, `@db.*`,
 * `@relation(fields, references)`, `@ignore`, and the block attributes `@@map`, `@@schema`,
 * `@@id`, `@@unique`, `@@ignore`.
 */

/** One scalar field of a model as a column. */
export interface PrismaColumn {
  field: string;
  column: string;
  /** Prisma scalar type (`String`, `DateTime`, ...) or the enum's name. */
  type: string;
  /** `@db.Timestamptz(3)` -> { name: 'Timestamptz', args: ['3'] } */
  nativeType?: { name: string; args: string[] };
  optional: boolean;
  list: boolean;
  /** `@default(...)` as written, e.g. `now()`, `uuid()`, `true`. */
  default?: string;
  /** Set when the type is one of the schema's enums: that enum's database name. */
  enumDbName?: string;
}

export interface PrismaForeignKey {
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
}

export interface PrismaTable {
  model: string;
  table: string;
  /** `@@schema` of the model, when the datasource is multi-schema. */
  schema?: string;
  columns: PrismaColumn[];
  primaryKey: string[];
  /** Column lists of `@unique` and `@@unique`. */
  uniques: string[][];
  foreignKeys: PrismaForeignKey[];
}

export interface PrismaDatamodel {
  tables: PrismaTable[];
  /** Enum name -> database type name. */
  enums: Map<string, string>;
}

const SCALARS = new Set(['String', 'Boolean', 'Int', 'BigInt', 'Float', 'Decimal', 'DateTime', 'Json', 'Bytes']);

/** Defaults Prisma Client generates itself; the column needs none in the database. */
const CLIENT_SIDE_DEFAULTS = /^(uuid|cuid|nanoid|ulid)\(.*\)$/;

/** Reads the datamodel of a `schema.prisma` source. */
export function parsePrismaSchema(source: string): PrismaDatamodel {
  const text = stripComments(source);
  const blocks = [...iterateBlocks(text)];
  const enums = new Map<string, string>();
  for (const b of blocks.filter((b) => b.kind === 'enum')) {
    const map = b.body.match(/@@map\(\s*"([^"]+)"\s*\)/);
    enums.set(b.name, map?.[1] ?? b.name);
  }
  const models = blocks.filter((b) => b.kind === 'model');
  const modelNames = new Set(models.map((m) => m.name));
  const tableOf = new Map<string, string>();
  const parsed: { block: Block; lines: string[] }[] = [];
  for (const block of models) {
    const lines = block.body
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const map = lines.find((l) => l.startsWith('@@map('))?.match(/"([^"]+)"/)?.[1];
    tableOf.set(block.name, map ?? block.name);
    parsed.push({ block, lines });
  }

  // Field -> column per model, needed to translate @@id/@@unique and relations.
  const columnOf = new Map<string, Map<string, string>>();
  for (const { block, lines } of parsed) {
    const cols = new Map<string, string>();
    for (const line of lines) {
      if (line.startsWith('@@')) continue;
      const f = parseFieldLine(line);
      if (f) cols.set(f.name, f.attributes.find((a) => a.name === 'map')?.args.match(/"([^"]+)"/)?.[1] ?? f.name);
    }
    columnOf.set(block.name, cols);
  }

  const tables: PrismaTable[] = [];
  for (const { block, lines } of parsed) {
    if (lines.some((l) => l.startsWith('@@ignore'))) continue;
    const cols = columnOf.get(block.name)!;
    const toColumns = (fields: string[]) => fields.map((f) => cols.get(f) ?? f);
    const table: PrismaTable = {
      model: block.name,
      table: tableOf.get(block.name)!,
      columns: [],
      primaryKey: [],
      uniques: [],
      foreignKeys: [],
    };
    for (const line of lines) {
      if (line.startsWith('@@')) {
        const attr = parseAttributes(line.slice(1))[0];
        if (!attr) continue;
        if (attr.name === 'schema') table.schema = attr.args.match(/"([^"]+)"/)?.[1];
        if (attr.name === 'id') table.primaryKey = toColumns(listArg(attr.args, 'fields') ?? []);
        if (attr.name === 'unique') table.uniques.push(toColumns(listArg(attr.args, 'fields') ?? []));
        continue;
      }
      const f = parseFieldLine(line);
      if (!f || f.attributes.some((a) => a.name === 'ignore')) continue;
      if (modelNames.has(f.type)) {
        const rel = f.attributes.find((a) => a.name === 'relation');
        const fields = rel && listArg(rel.args, 'fields');
        const references = rel && listArg(rel.args, 'references');
        if (fields && references) {
          table.foreignKeys.push({
            columns: toColumns(fields),
            referencedTable: tableOf.get(f.type)!,
            referencedColumns: references.map((r) => columnOf.get(f.type)?.get(r) ?? r),
          });
        }
        continue;
      }
      const column = cols.get(f.name)!;
      const native = f.attributes.find((a) => a.name.startsWith('db.'));
      const def = f.attributes.find((a) => a.name === 'default');
      const col: PrismaColumn = { field: f.name, column, type: f.type, optional: f.optional, list: f.list };
      if (native) col.nativeType = { name: native.name.slice(3), args: splitArgs(native.args) };
      if (def) col.default = def.args.trim();
      if (enums.has(f.type)) col.enumDbName = enums.get(f.type)!;
      table.columns.push(col);
      if (f.attributes.some((a) => a.name === 'id')) table.primaryKey = [column];
      if (f.attributes.some((a) => a.name === 'unique')) table.uniques.push([column]);
    }
    tables.push(table);
  }
  return { tables, enums };
}

export interface PrismaDriftOptions {
  /** Path of `schema.prisma`, or its text in `source`. */
  schemaPath?: string;
  source?: string;
  connectionString: string;
  /** The Postgres schema the migrations built (models of other `@@schema`s are left out). */
  schema: string;
  /** Tables that are not the service's models. Default: the migration and outbox/inbox tables. */
  ignoreTables?: string[];
}

export const PLATFORM_TABLES = ['schema_migrations', 'outbox_event', 'inbox_event'];

/**
 * Lists every disagreement between `schema.prisma` and the migrated database, one sentence each;
 * empty when they agree. Checked: every model's table exists; every scalar field's column exists
 * with a compatible type and the same nullability; no column or table of the schema is unknown to
 * Prisma; primary keys; `@unique`/`@@unique` backed by a unique index; relations backed by foreign
 * keys; `@default`s Prisma leaves to the database exist there.
 */
export async function findPrismaDrift(opts: PrismaDriftOptions): Promise<string[]> {
  const source = opts.source ?? (opts.schemaPath ? await readFile(opts.schemaPath, 'utf8') : undefined);
  if (source === undefined) throw new Error('findPrismaDrift needs schemaPath or source');
  const model = parsePrismaSchema(source);
  const db = await readDatabase(opts.connectionString, opts.schema);
  return compare(model, db, opts.schema, new Set(opts.ignoreTables ?? PLATFORM_TABLES));
}

// ---------------------------------------------------------------------------------------------

interface DbColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  is_identity: 'YES' | 'NO';
  character_maximum_length: number | null;
  datetime_precision: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
}

interface DbIndex {
  table_name: string;
  primary: boolean;
  unique: boolean;
  partial: boolean;
  columns: string[];
}

interface DbForeignKey {
  table_name: string;
  columns: string[];
  referenced_table: string;
  referenced_columns: string[];
}

interface DbSchema {
  tables: Set<string>;
  columns: DbColumn[];
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
}

async function readDatabase(connectionString: string, schema: string): Promise<DbSchema> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'`,
      [schema],
    );
    const columns = await client.query<DbColumn>(
      `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, is_identity,
              character_maximum_length, datetime_precision, numeric_precision, numeric_scale
         FROM information_schema.columns WHERE table_schema = $1`,
      [schema],
    );
    const indexes = await client.query<DbIndex>(
      `SELECT t.relname AS table_name, i.indisprimary AS primary, i.indisunique AS unique,
              (i.indpred IS NOT NULL OR i.indexprs IS NOT NULL) AS partial,
              array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, n)
                      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n) AS columns
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace ns ON ns.oid = t.relnamespace
        WHERE ns.nspname = $1`,
      [schema],
    );
    const foreignKeys = await client.query<DbForeignKey>(
      `SELECT t.relname AS table_name, rt.relname AS referenced_table,
              array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n) AS columns,
              array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n)
                      JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.n) AS referenced_columns
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_class rt ON rt.oid = c.confrelid
         JOIN pg_namespace ns ON ns.oid = t.relnamespace
        WHERE c.contype = 'f' AND ns.nspname = $1`,
      [schema],
    );
    return {
      tables: new Set(tables.rows.map((r) => r.table_name)),
      columns: columns.rows,
      indexes: indexes.rows,
      foreignKeys: foreignKeys.rows,
    };
  } finally {
    await client.end();
  }
}

function compare(model: PrismaDatamodel, db: DbSchema, schema: string, ignore: Set<string>): string[] {
  const problems: string[] = [];
  const tables = model.tables.filter((t) => t.schema === undefined || t.schema === schema);
  const modelled = new Set(tables.map((t) => t.table));
  for (const table of [...db.tables].sort()) {
    if (!modelled.has(table) && !ignore.has(table)) problems.push(`${schema}.${table}: table is not in schema.prisma`);
  }
  for (const t of tables) {
    const where = `${schema}.${t.table} (model ${t.model})`;
    if (!db.tables.has(t.table)) {
      problems.push(`${where}: table does not exist in the database`);
      continue;
    }
    const dbColumns = new Map(db.columns.filter((c) => c.table_name === t.table).map((c) => [c.column_name, c]));
    for (const col of t.columns) {
      const at = `${schema}.${t.table}.${col.column} (${t.model}.${col.field})`;
      const dbCol = dbColumns.get(col.column);
      if (!dbCol) {
        problems.push(`${at}: column does not exist in the database`);
        continue;
      }
      const typeProblem = typeMismatch(col, dbCol);
      if (typeProblem) problems.push(`${at}: ${typeProblem}`);
      const nullable = dbCol.is_nullable === 'YES';
      if (col.optional !== nullable) {
        problems.push(
          `${at}: Prisma says ${col.optional ? 'optional' : 'required'} but the column is ${nullable ? 'nullable' : 'NOT NULL'}`,
        );
      }
      if (col.default !== undefined && !CLIENT_SIDE_DEFAULTS.test(col.default)) {
        if (dbCol.column_default === null && dbCol.is_identity !== 'YES') {
          problems.push(`${at}: Prisma has @default(${col.default}) but the column has no default in the database`);
        }
      }
    }
    const known = new Set(t.columns.map((c) => c.column));
    for (const name of [...dbColumns.keys()].sort()) {
      if (!known.has(name)) problems.push(`${schema}.${t.table}.${name}: column is not in model ${t.model}`);
    }
    const indexes = db.indexes.filter((i) => i.table_name === t.table);
    const pk = indexes.find((i) => i.primary);
    if (t.primaryKey.length > 0 && !sameList(pk?.columns ?? [], t.primaryKey)) {
      problems.push(`${where}: primary key is (${pk?.columns.join(', ') ?? 'none'}) but Prisma says (${t.primaryKey.join(', ')})`);
    }
    for (const unique of t.uniques) {
      if (!indexes.some((i) => i.unique && !i.partial && sameSet(i.columns, unique))) {
        problems.push(`${where}: no unique index on (${unique.join(', ')}) backs Prisma's @unique`);
      }
    }
    for (const fk of t.foreignKeys) {
      const found = db.foreignKeys.some(
        (d) =>
          d.table_name === t.table &&
          d.referenced_table === fk.referencedTable &&
          sameList(d.columns, fk.columns) &&
          sameList(d.referenced_columns, fk.referencedColumns),
      );
      if (!found) {
        problems.push(
          `${where}: no foreign key (${fk.columns.join(', ')}) -> ${fk.referencedTable} (${fk.referencedColumns.join(', ')}) backs the relation`,
        );
      }
    }
  }
  return problems;
}

/** The Postgres types (udt names) Prisma reads and writes for a scalar type and native type. */
function expectedUdt(col: PrismaColumn): { udt: string[]; length?: number; precision?: number; scale?: number } | undefined {
  if (col.enumDbName) return { udt: [col.enumDbName] };
  const native = col.nativeType;
  const arg = (i: number) => (native?.args[i] !== undefined ? Number(native.args[i]) : undefined);
  const withArgs = (udt: string, extra: { length?: number; precision?: number; scale?: number }) => {
    const out: { udt: string[]; length?: number; precision?: number; scale?: number } = { udt: [udt] };
    for (const [k, v] of Object.entries(extra)) if (v !== undefined && !Number.isNaN(v)) out[k as 'length'] = v;
    return out;
  };
  if (native) {
    const byNative: Record<string, () => ReturnType<typeof withArgs>> = {
      Text: () => withArgs('text', {}),
      VarChar: () => withArgs('varchar', { length: arg(0) }),
      Char: () => withArgs('bpchar', { length: arg(0) }),
      Uuid: () => withArgs('uuid', {}),
      Xml: () => withArgs('xml', {}),
      Inet: () => withArgs('inet', {}),
      Citext: () => withArgs('citext', {}),
      Bit: () => withArgs('bit', { length: arg(0) }),
      VarBit: () => withArgs('varbit', { length: arg(0) }),
      Boolean: () => withArgs('bool', {}),
      Integer: () => withArgs('int4', {}),
      SmallInt: () => withArgs('int2', {}),
      Oid: () => withArgs('oid', {}),
      BigInt: () => withArgs('int8', {}),
      DoublePrecision: () => withArgs('float8', {}),
      Real: () => withArgs('float4', {}),
      Decimal: () => withArgs('numeric', { precision: arg(0), scale: arg(1) }),
      Money: () => withArgs('money', {}),
      Timestamp: () => withArgs('timestamp', { precision: arg(0) }),
      Timestamptz: () => withArgs('timestamptz', { precision: arg(0) }),
      Date: () => withArgs('date', {}),
      Time: () => withArgs('time', { precision: arg(0) }),
      Timetz: () => withArgs('timetz', { precision: arg(0) }),
      Json: () => withArgs('json', {}),
      JsonB: () => withArgs('jsonb', {}),
      ByteA: () => withArgs('bytea', {}),
    };
    return byNative[native.name]?.();
  }
  const byScalar: Record<string, ReturnType<typeof withArgs>> = {
    String: withArgs('text', {}),
    Boolean: withArgs('bool', {}),
    Int: withArgs('int4', {}),
    BigInt: withArgs('int8', {}),
    Float: withArgs('float8', {}),
    Decimal: withArgs('numeric', { precision: 65, scale: 30 }),
    // Prisma's DateTime without a native type is timestamp(3) without time zone.
    DateTime: withArgs('timestamp', { precision: 3 }),
    Json: withArgs('jsonb', {}),
    Bytes: withArgs('bytea', {}),
  };
  return byScalar[col.type];
}

function typeMismatch(col: PrismaColumn, db: DbColumn): string | undefined {
  // Unsupported("...") columns are opaque to Prisma: existence and nullability are all we check.
  if (col.type.startsWith('Unsupported(')) return undefined;
  if (!SCALARS.has(col.type) && !col.enumDbName) return `unknown Prisma type ${col.type}`;
  const expected = expectedUdt(col);
  const shown = `${col.type}${col.nativeType ? ` @db.${col.nativeType.name}${col.nativeType.args.length ? `(${col.nativeType.args.join(', ')})` : ''}` : ''}${col.list ? '[]' : ''}`;
  if (!expected) return `cannot check native type @db.${col.nativeType?.name}`;
  const actual = col.list ? db.udt_name.replace(/^_/, '') : db.udt_name;
  if (col.list !== (db.data_type === 'ARRAY')) return `Prisma ${shown} but the column is ${describe(db)}`;
  if (!expected.udt.includes(actual)) return `Prisma ${shown} but the column is ${describe(db)}`;
  if (expected.length !== undefined && db.character_maximum_length !== expected.length) {
    return `Prisma ${shown} but the column is ${describe(db)}`;
  }
  if (expected.precision !== undefined) {
    const actualPrecision = ['numeric'].includes(actual) ? db.numeric_precision : db.datetime_precision;
    if (actualPrecision !== expected.precision) return `Prisma ${shown} but the column is ${describe(db)}`;
  }
  if (expected.scale !== undefined && db.numeric_scale !== expected.scale) {
    return `Prisma ${shown} but the column is ${describe(db)}`;
  }
  return undefined;
}

function describe(db: DbColumn): string {
  const args =
    db.character_maximum_length ?? (db.udt_name === 'numeric' ? `${db.numeric_precision}, ${db.numeric_scale}` : db.datetime_precision);
  return `${db.data_type === 'ARRAY' ? `${db.udt_name.slice(1)}[]` : db.udt_name}${args !== null && args !== undefined ? `(${args})` : ''}`;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

// --- schema.prisma parsing --------------------------------------------------------------------

interface Block {
  kind: string;
  name: string;
  body: string;
}

interface Attribute {
  name: string;
  args: string;
}

/** Removes `//` and `///` comments outside string literals. */
function stripComments(source: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += source[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return out;
}

function* iterateBlocks(text: string): Generator<Block> {
  const header = /\b(model|enum|view|type|generator|datasource)\s+(\w+)\s*\{/g;
  let m: RegExpExecArray | null;
  while ((m = header.exec(text))) {
    let depth = 1;
    let i = header.lastIndex;
    let inString = false;
    for (; i < text.length && depth > 0; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}') depth--;
    }
    yield { kind: m[1]!, name: m[2]!, body: text.slice(header.lastIndex, i - 1) };
    header.lastIndex = i;
  }
}

function parseFieldLine(line: string): { name: string; type: string; optional: boolean; list: boolean; attributes: Attribute[] } | undefined {
  const m = /^(\w+)\s+(Unsupported\("[^"]*"\)|\w+)(\[\])?(\?)?\s*(.*)$/.exec(line);
  if (!m) return undefined;
  return { name: m[1]!, type: m[2]!, list: m[3] !== undefined, optional: m[4] !== undefined, attributes: parseAttributes(m[5] ?? '') };
}

/** `@id @default(now()) @db.Timestamptz(3)` -> [{id, ''}, {default, 'now()'}, {db.Timestamptz, '3'}] */
function parseAttributes(text: string): Attribute[] {
  const out: Attribute[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] !== '@') {
      i++;
      continue;
    }
    const name = /^@@?([\w.]+)/.exec(text.slice(i));
    if (!name) {
      i++;
      continue;
    }
    i += name[0].length;
    let args = '';
    if (text[i] === '(') {
      let depth = 1;
      let inString = false;
      const start = ++i;
      for (; i < text.length && depth > 0; i++) {
        const c = text[i];
        if (inString) {
          if (c === '\\') i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth--;
      }
      args = text.slice(start, i - 1);
    }
    out.push({ name: name[1]!, args });
  }
  return out;
}

/** The list of a named argument (`fields: [a, b]`), or of the first positional one (`[a, b]`). */
function listArg(args: string, name: string): string[] | undefined {
  const named = new RegExp(`\\b${name}\\s*:\\s*\\[([^\\]]*)\\]`).exec(args);
  const positional = /^\s*\[([^\]]*)\]/.exec(args);
  const list = named?.[1] ?? (name === 'fields' ? positional?.[1] : undefined);
  if (list === undefined) return undefined;
  return list
    .split(',')
    .map((s) => s.trim().replace(/\(.*\)$/, '')) // `name(sort: Desc)` -> name
    .filter(Boolean);
}

function splitArgs(args: string): string[] {
  return args
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
