/**
 * `vantage team add-user NAME [--admin]`, `team revoke NAME`, `team list`:
 * the people of a team server, through the `team` operations (scope
 * `admin`), run on this data home's store like any other command.
 *
 * @module
 */
import { VantageError } from "../core/errors.ts";
import { type Command, parseFlags, writeStderr, writeStdout } from "./command.ts";
import { ROLE_SCOPES } from "../ops/scopes.ts";
import { OUTPUT_FLAGS, runDocsOperation } from "./docs_common.ts";

interface PersonEntry {
  name: string;
  role: string;
  created_at: string;
  revoked_at: string | null;
}

const USAGE = `Usage: vantage team add-user NAME [--admin] [--replace]
       vantage team revoke NAME
       vantage team list

Manages the people of a team server (the store of this data home, or the
PostgreSQL store --store or VANTAGE_STORE names; serve reads it on every
request, so no restart is needed).

  add-user NAME   Issue NAME a bearer token (role member, or admin with
                  --admin) and print it on stdout. It is shown this once:
                  only its SHA-256 is stored. A revoked NAME gets a new one;
                  one holding a valid token needs --replace (rotation).
  revoke NAME     Revoke NAME's token: their next hook or request gets 401.
  list            Everyone, their role and whether their token is valid.

Options:
  --admin         With add-user: the admin role (may manage people)
  --replace       With add-user: replace NAME's valid token (it stops working)
  --store S       The team server's store: postgres://user@host[:port]/database
                  (default VANTAGE_STORE; without either, this data home's file)
  --scopes LIST   Scopes to act with (default: the local ones and admin)
  --json          Print the operation's result as JSON`;

/** The `team` command. */
export const command: Command = {
  name: "team",
  summary: "Manage a team server's people: add-user NAME [--admin], revoke NAME, list",
  usage: USAGE,
  async run(args) {
    const { values, positionals } = parseFlags("team", args, {
      admin: { type: "boolean" },
      replace: { type: "boolean" },
      store: { type: "string" },
      ...OUTPUT_FLAGS,
    }, 2);
    const [action, name] = positionals;
    const needsName = action === "add-user" || action === "revoke";
    if (!needsName && action !== "list") {
      throw new VantageError(
        "invalid_arguments",
        `${
          action === undefined ? "missing action" : `unknown action '${action}'`
        }; use add-user NAME, revoke NAME or list (see 'vantage team --help')`,
      );
    }
    if (needsName !== (name !== undefined)) {
      throw new VantageError(
        "invalid_arguments",
        needsName
          ? `team ${action} needs the person's NAME`
          : `team list takes no NAME; got '${name}'`,
      );
    }
    for (const flag of ["admin", "replace"]) {
      if (values[flag] === true && action !== "add-user") {
        throw new VantageError("invalid_arguments", `--${flag} goes with add-user only`);
      }
    }
    // The data home's owner acting as its admin, unless --scopes says otherwise.
    const scopes = values.scopes ?? ROLE_SCOPES.admin.join(",");
    const store = typeof values.store === "string" ? values.store : undefined;
    const json = (result: unknown): number => {
      writeStdout(JSON.stringify(result, null, 2) + "\n");
      return 0;
    };
    if (action === "add-user") {
      const result = await runDocsOperation(
        "team.add_user",
        { name, admin: values.admin === true, replace: values.replace === true },
        scopes,
        store,
      );
      if (values.json === true) return json(result);
      const person = result.person as PersonEntry;
      writeStdout(`${result.token}\n`);
      // On stderr, so `TOKEN=$(vantage team add-user ada)` captures the token alone.
      writeStderr(
        `This is ${person.name}'s token (${person.role}); it is shown only now: only its SHA-256 is stored.`,
      );
      return 0;
    }
    if (action === "revoke") {
      const result = await runDocsOperation("team.revoke_user", { name }, scopes, store);
      if (values.json === true) return json(result);
      const person = result.person as PersonEntry;
      writeStdout(`revoked ${person.name}'s token (at ${person.revoked_at})\n`);
      return 0;
    }
    const result = await runDocsOperation("team.list_users", {}, scopes, store);
    if (values.json === true) return json(result);
    const people = result.people as PersonEntry[];
    if (people.length === 0) {
      writeStdout("no people yet: add one with 'vantage team add-user NAME'\n");
      return 0;
    }
    const width = Math.max(4, ...people.map((person) => person.name.length));
    writeStdout(`${"NAME".padEnd(width)}  ROLE    ISSUED                    TOKEN\n`);
    for (const person of people) {
      const state = person.revoked_at === null ? "valid" : `revoked ${person.revoked_at}`;
      writeStdout(
        `${person.name.padEnd(width)}  ${person.role.padEnd(6)}  ${person.created_at}  ${state}\n`,
      );
    }
    return 0;
  },
};
