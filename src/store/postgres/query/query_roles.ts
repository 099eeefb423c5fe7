/**
 * The PostgreSQL roles read-only SQL runs as. SQLite's query process lets a
 * statement read only the tables the caller's scopes open (query_tables.ts);
 * on PostgreSQL the server enforces the same list with its own privileges:
 * one NOLOGIN role per set of scopes that opens tables (`agent:read`,
 * `docs:read`, `admin`: eight sets), each holding SELECT on exactly the
 * tables {@linkcode readableTables} gives that set, and nothing else.
 *
 * A caller's statement runs inside a SECURITY DEFINER function owned by its
 * role (one function per role, in the `vantage_query` schema). PostgreSQL
 * refuses to change `role` or `session_authorization` inside such a
 * function, so a query cannot climb back to the connecting user with
 * `set_config('role', …)` — which `SET LOCAL ROLE` alone would allow, since
 * SET ROLE checks the session user's memberships, not the current role's.
 *
 * Roles belong to the cluster, not the database, so their names carry the
 * database's: two Vantage databases of one cluster never share a role (a
 * role with grants in both would let one database's user read the other's).
 * The names are `vantage_sql_<database>_<hash>_<scopes>`, at most 63
 * characters.
 *
 * {@linkcode prepareQueryRoles} runs at open, after the migrations: it
 * makes what is missing and corrects what drifted (a table a migration
 * added, a grant someone made by hand), in one transaction; when all is in
 * place it only reads the catalogs. Making a role needs CREATEROLE (or a
 * superuser); a connecting user without it gets a reason instead of roles,
 * and read-only SQL answers `unavailable` with it rather than running
 * unconfined.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { QUERY_TABLES, readableTables } from "../../query/query_tables.ts";
import type { PgQueryable } from "../connection.ts";
import { MIGRATION_LOCK } from "../migrate.ts";

/** The schema that holds the query functions (one per role). */
export const QUERY_SCHEMA = "vantage_query";

/** Every role name starts with this; what starts with it and is not planned is cleared away. */
export const ROLE_PREFIX = "vantage_sql_";

/** The advisory lock a role setup holds, so two servers opening one database take turns. */
const ROLES_LOCK = MIGRATION_LOCK + 1;

/**
 * The scopes besides `sql:read` that open tables to queries, in a fixed order. Derived from
 * the table list, so a scope a future table needs gets its roles without a change here.
 */
export const TABLE_SCOPES: readonly string[] = [
  ...new Set(QUERY_TABLES.flatMap((table) => table.scopes)),
].sort();

/** One role of the plan. */
export interface QueryRole {
  /** Its name in the cluster. */
  readonly name: string;
  /** The scopes (besides `sql:read`) a caller holds to run as it. */
  readonly scopes: readonly string[];
  /** The tables those scopes open (from the table list; those that exist get SELECT). */
  readonly tables: readonly string[];
  /** Its query function, schema-qualified and quoted. */
  readonly runFunction: string;
}

/** A word for a scope in a role's name: `agent:read` → `agent`. */
function scopeWord(scope: string): string {
  return scope.split(":")[0].replace(/[^a-z0-9]/g, "");
}

/** The key of a table list: the same tables in any order give the same key. */
export function tablesKey(tables: readonly string[]): string {
  return [...new Set(tables.map((table) => table.toLowerCase()))].sort().join(",");
}

/**
 * The roles read-only SQL needs in `database`, one per subset of {@linkcode TABLE_SCOPES}.
 *
 * @example
 * ```ts
 * import { queryRoles } from "./query_roles.ts";
 * const roles = queryRoles("team");
 * roles.length; // 8
 * roles.find((role) => role.scopes.length === 0)?.name; // "vantage_sql_team_<hash>_sql"
 * ```
 */
export function queryRoles(database: string): QueryRole[] {
  const hash = createHash("sha256").update(database).digest("hex").slice(0, 6);
  const tag = database.toLowerCase().replace(/[^a-z0-9]+/g, "_").slice(0, 20);
  const words = TABLE_SCOPES.map(scopeWord);
  if (new Set(words).size !== words.length) {
    throw new Error(`two scopes share a role-name word: ${TABLE_SCOPES.join(", ")}`);
  }
  const roles: QueryRole[] = [];
  for (let mask = 0; mask < 1 << TABLE_SCOPES.length; mask++) {
    const scopes = TABLE_SCOPES.filter((_, bit) => (mask & (1 << bit)) !== 0);
    const suffix = scopes.length === 0 ? "sql" : scopes.map(scopeWord).join("_");
    const name = `${ROLE_PREFIX}${tag}_${hash}_${suffix}`;
    if (name.length > 63) throw new Error(`the query role name ${name} is over 63 characters`);
    roles.push({
      name,
      scopes,
      tables: readableTables((scope) => scopes.includes(scope)),
      runFunction: `${QUERY_SCHEMA}.${quoteIdent(`run_as_${suffix}`)}`,
    });
  }
  return roles;
}

/** `name` as a quoted identifier. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The body of every query function. It runs the caller's statement (already checked to be one
 * statement that parses on its own, so it cannot close the parentheses around it) as a
 * subquery, so no write can stand there, with the row cap on top; each row comes back as the
 * JSON text of an array of its cells in column order (duplicate column names kept). Strings,
 * and JSON values as text, are cut one character past the cell cap (the runner marks the
 * cut); a `bytea` cell is its size.
 */
const RUN_BODY = `
BEGIN
  RETURN QUERY EXECUTE format(
    $wrap$SELECT (
      SELECT json_agg(CASE
          WHEN cell.n = ANY(%L::integer[])
            THEN to_json('<blob ' || ((length(cell.value #>> '{}') - 2) / 2) || ' bytes>')
          WHEN json_typeof(cell.value) = 'string'
            THEN to_json(left(cell.value #>> '{}', %s))
          WHEN json_typeof(cell.value) IN ('object', 'array')
            THEN to_json(left(cell.value::text, %s))
          ELSE cell.value
        END ORDER BY cell.n)::text
      FROM json_each(to_json(vantage_row.*)) WITH ORDINALITY AS cell(key, value, n)
    ) FROM (
%s
) AS vantage_row LIMIT %s$wrap$,
    blob_columns, cell_chars + 1, cell_chars + 1, statement, row_limit + 1);
END`;

/**
 * The arguments of every query function, spelled as `pg_get_function_identity_arguments`
 * answers them (so a function made with other arguments is found and replaced).
 */
const RUN_ARGUMENTS = "statement text, row_limit integer, cell_chars integer, blob_columns text";

/** Whether read-only SQL can run, and as which roles. */
export type QueryRolesState =
  | {
    readonly ready: true;
    readonly roles: readonly QueryRole[];
    /** Whether this call made or corrected anything (false: all was in place). */
    readonly changed: boolean;
  }
  | { readonly ready: false; readonly reason: string };

/** What the catalogs say, read at once. */
interface Found {
  me: string;
  database: string;
  schema: string;
  mayCreateRoles: boolean;
  roles: Map<string, { bare: boolean; member: boolean }>;
  tables: Set<string>;
  /** Role → the privileges it holds on each table of the schema ("table:PRIVILEGE"). */
  grants: Map<string, Set<string>>;
  /** Function name → whether it is as planned (body, owner, SECURITY DEFINER, not public). */
  functions: Map<string, boolean>;
  schemaExists: boolean;
  /** Roles that may use both schemas. */
  usage: Set<string>;
}

/** A boolean column as the client answers it (the store's row type knows only SQLite's values). */
function isTrue(value: unknown): boolean {
  return value === true;
}

async function readCatalogs(q: PgQueryable, planned: readonly QueryRole[]): Promise<Found> {
  const [who] = await q.query(
    `SELECT current_user AS me, current_database() AS database, current_schema() AS schema,
            r.rolsuper OR r.rolcreaterole AS may_create, to_regnamespace($1) IS NOT NULL AS schema_exists
     FROM pg_roles r WHERE r.rolname = current_user`,
    [QUERY_SCHEMA],
  );
  const names = planned.map((role) => role.name);
  const roleRows = await q.query(
    `SELECT r.rolname,
            NOT (r.rolcanlogin OR r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR
                 r.rolreplication OR r.rolbypassrls)
              AND NOT EXISTS (SELECT 1 FROM pg_auth_members m WHERE m.member = r.oid) AS bare,
            pg_has_role(current_user, r.oid, 'MEMBER') AS member,
            CASE WHEN to_regnamespace($2) IS NULL THEN false
                 ELSE has_schema_privilege(r.oid, current_schema(), 'USAGE') AND
                      has_schema_privilege(r.oid, $2, 'USAGE') END AS usage
     FROM pg_roles r WHERE r.rolname = ANY($1::text[])`,
    [names, QUERY_SCHEMA],
  );
  const tableRows = await q.query(
    `SELECT c.relname FROM pg_class c
     WHERE c.relnamespace = to_regnamespace(current_schema()) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`,
  );
  // Every privilege a Vantage query role (of this database or an old name) holds on the schema's
  // relations; LIKE's backslash makes the underscores literal.
  const grantRows = await q.query(
    `SELECT g.rolname, c.relname, a.privilege_type
     FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a JOIN pg_roles g ON g.oid = a.grantee
     WHERE c.relnamespace = to_regnamespace(current_schema()) AND g.rolname LIKE $1`,
    [`${ROLE_PREFIX.replaceAll("_", "\\_")}%`],
  );
  const functionRows = await q.query(
    `SELECT p.proname, pg_get_userbyid(p.proowner) AS owner, p.prosecdef, p.prosrc,
            pg_get_function_identity_arguments(p.oid) AS arguments,
            has_function_privilege('public', p.oid, 'EXECUTE') AS public_execute
     FROM pg_proc p WHERE p.pronamespace = to_regnamespace($1)`,
    [QUERY_SCHEMA],
  );
  const roles = new Map(
    roleRows.map((row) => [String(row.rolname), {
      bare: isTrue(row.bare),
      member: isTrue(row.member),
    }]),
  );
  const grants = new Map<string, Set<string>>();
  for (const row of grantRows) {
    const role = String(row.rolname);
    if (!grants.has(role)) grants.set(role, new Set());
    grants.get(role)!.add(`${row.relname}:${row.privilege_type}`);
  }
  const owners = new Map(planned.map((role) => [role.runFunction, role.name]));
  const functions = new Map<string, boolean>();
  for (const row of functionRows) {
    const qualified = `${QUERY_SCHEMA}.${quoteIdent(String(row.proname))}`;
    functions.set(
      qualified,
      owners.get(qualified) === row.owner && isTrue(row.prosecdef) && row.prosrc === RUN_BODY &&
        row.arguments === RUN_ARGUMENTS && !isTrue(row.public_execute),
    );
  }
  return {
    me: String(who.me),
    database: String(who.database),
    schema: String(who.schema),
    mayCreateRoles: isTrue(who.may_create),
    roles,
    tables: new Set(tableRows.map((row) => String(row.relname))),
    grants,
    functions,
    schemaExists: isTrue(who.schema_exists),
    usage: new Set(roleRows.filter((row) => isTrue(row.usage)).map((row) => String(row.rolname))),
  };
}

/** The statements that make `role` as planned, whatever state it is in. */
function roleScript(role: QueryRole, found: Found): string[] {
  const name = quoteIdent(role.name);
  const store = quoteIdent(found.schema);
  const statements: string[] = [];
  const existing = found.roles.get(role.name);
  if (existing === undefined) {
    statements.push(
      `CREATE ROLE ${name} NOLOGIN NOINHERIT`,
      `COMMENT ON ROLE ${name} IS ${
        quoteLiteral(
          `Vantage read-only SQL on database ${found.database} for callers with ${
            ["sql:read", ...role.scopes].join(", ")
          }: SELECT on the tables they open, nothing else`,
        )
      }`,
    );
  }
  if (existing === undefined || !existing.member) {
    statements.push(`GRANT ${name} TO ${quoteIdent(found.me)}`);
  }
  statements.push(
    `GRANT USAGE ON SCHEMA ${store} TO ${name}`,
    `GRANT USAGE ON SCHEMA ${QUERY_SCHEMA} TO ${name}`,
  );
  if (found.functions.get(role.runFunction) !== true) {
    // Owned by the role, so it runs as the role: it may own a function only where it may create.
    statements.push(
      `DROP FUNCTION IF EXISTS ${role.runFunction}(${RUN_ARGUMENTS})`,
      `CREATE FUNCTION ${role.runFunction}(${RUN_ARGUMENTS}) RETURNS SETOF text
         LANGUAGE plpgsql SECURITY DEFINER AS $run_body$${RUN_BODY}$run_body$`,
      `REVOKE ALL ON FUNCTION ${role.runFunction}(${RUN_ARGUMENTS}) FROM PUBLIC`,
      `GRANT CREATE ON SCHEMA ${QUERY_SCHEMA} TO ${name}`,
      `ALTER FUNCTION ${role.runFunction}(${RUN_ARGUMENTS}) OWNER TO ${name}`,
      `REVOKE CREATE ON SCHEMA ${QUERY_SCHEMA} FROM ${name}`,
    );
  }
  const want = role.tables.filter((table) => found.tables.has(table));
  const held = found.grants.get(role.name) ?? new Set<string>();
  const exact = held.size === want.length && want.every((table) => held.has(`${table}:SELECT`));
  if (!exact) {
    statements.push(`REVOKE ALL ON ALL TABLES IN SCHEMA ${store} FROM ${name}`);
    if (want.length > 0) {
      statements.push(
        `GRANT SELECT ON TABLE ${
          want.map((table) => `${store}.${quoteIdent(table)}`).join(", ")
        } TO ${name}`,
      );
    }
  }
  return statements;
}

/** Whether `role` is in place as planned: nothing to do for it. */
function inPlace(role: QueryRole, found: Found): boolean {
  const existing = found.roles.get(role.name);
  if (existing === undefined || !existing.member || !found.usage.has(role.name)) return false;
  if (found.functions.get(role.runFunction) !== true) return false;
  const want = role.tables.filter((table) => found.tables.has(table));
  const held = found.grants.get(role.name) ?? new Set<string>();
  return held.size === want.length && want.every((table) => held.has(`${table}:SELECT`));
}

/**
 * Makes, or corrects, the query roles of the database `q` is connected to; answers whether
 * read-only SQL can run and why not. Throws only what the server throws (it cannot be
 * reached, …); a connecting user who may not make roles is a `ready: false` answer.
 *
 * @example
 * ```ts ignore
 * const state = await prepareQueryRoles(pool);
 * if (!state.ready) log.warn(state.reason);
 * ```
 */
export function prepareQueryRoles(q: PgQueryable): Promise<QueryRolesState> {
  return q.write(async (w) => {
    await w.query("SELECT pg_advisory_xact_lock($1)", [ROLES_LOCK]);
    const [{ database }] = await w.query("SELECT current_database() AS database");
    const roles = queryRoles(String(database));
    const found = await readCatalogs(w, roles);
    for (const role of roles) {
      const existing = found.roles.get(role.name);
      if (existing !== undefined && !existing.bare) {
        return {
          ready: false,
          reason:
            `read-only SQL is off: the role ${role.name} exists but is not a bare NOLOGIN role (it may log in, holds attributes or belongs to other roles); drop it and restart, and Vantage makes it`,
        };
      }
    }
    const stale = [...found.grants.keys()].filter((name) =>
      !roles.some((role) => role.name === name)
    );
    const staleFunctions = [...found.functions.keys()].filter((fn) =>
      !roles.some((role) => role.runFunction === fn)
    );
    const todo = roles.filter((role) => !inPlace(role, found));
    if (todo.length === 0 && stale.length === 0 && staleFunctions.length === 0) {
      return { ready: true, roles, changed: false };
    }
    const needRoles = todo.filter((role) => found.roles.get(role.name)?.member !== true);
    if (needRoles.length > 0 && !found.mayCreateRoles) {
      return {
        ready: false,
        reason:
          `read-only SQL is off: the PostgreSQL user ${found.me} may not create roles (it lacks CREATEROLE), and queries run only as read-only roles (${
            needRoles.map((role) => role.name).join(", ")
          }); grant it CREATEROLE (ALTER ROLE ${
            quoteIdent(found.me)
          } CREATEROLE) or create those roles NOLOGIN and grant them to it, then restart`,
      };
    }
    const script: string[] = [];
    if (!found.schemaExists) {
      script.push(
        `CREATE SCHEMA ${QUERY_SCHEMA}`,
        `COMMENT ON SCHEMA ${QUERY_SCHEMA} IS 'Vantage read-only SQL: one function per query role'`,
      );
    }
    for (const role of todo) script.push(...roleScript(role, found));
    // A role of an earlier name of this database (renamed) keeps nothing here.
    for (const name of stale) {
      script.push(
        `REVOKE ALL ON ALL TABLES IN SCHEMA ${quoteIdent(found.schema)} FROM ${quoteIdent(name)}`,
      );
    }
    for (const fn of staleFunctions) {
      script.push(`DROP FUNCTION IF EXISTS ${fn}(${RUN_ARGUMENTS})`);
    }
    await w.exec(script.map((statement) => `${statement};`).join("\n"));
    return { ready: true, roles, changed: true };
  });
}

/**
 * The role whose tables are exactly `tables` (a list `readableTables` gave), if any.
 *
 * @example
 * ```ts ignore
 * roleFor(roles, readableTables((scope) => scope === "agent:read"))?.scopes; // ["agent:read"]
 * ```
 */
export function roleFor(
  roles: readonly QueryRole[],
  tables: readonly string[],
): QueryRole | undefined {
  const key = tablesKey(tables);
  return roles.find((role) => tablesKey(role.tables) === key);
}
