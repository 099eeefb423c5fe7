import assert from "node:assert/strict";
import { eventsWithOurHooks, type HookGroup, setHookGroups } from "../../src/install/json_hooks.ts";

const OURS = "/opt/vantage hook --agent claude-code";
const isOurs = (handler: unknown): boolean =>
  (handler as { command?: unknown })?.command === OURS ||
  ((handler as { command?: string })?.command?.endsWith(" hook --agent claude-code") ?? false);
const group = (matcher?: string): HookGroup => ({
  ...(matcher === undefined ? {} : { matcher }),
  hooks: [{ type: "command", command: OURS, timeout: 5 }],
});
const DESIRED: Record<string, HookGroup> = {
  SessionStart: group("*"),
  UserPromptSubmit: group(),
  PostToolUse: group("*"),
};

const USER_SETTINGS = `{
  "permissions": {
    "allow": ["Bash(git status)"]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write \\"$CLAUDE_FILE\\""
          }
        ]
      }
    ],
    "Notification": []
  },
  "model": "opus"
}
`;

/** Which of the original's paths exist, so only what Vantage created is pruned. */
function pruneAgainst(original: string): (path: readonly string[]) => boolean {
  const parsed = JSON.parse(original);
  return (path) => {
    let node = parsed;
    for (const key of path) {
      if (node === null || typeof node !== "object" || !(key in node)) return true;
      node = node[key];
    }
    return false;
  };
}

Deno.test("hooks go beside the user's, twice is once, and removal gives the bytes back", () => {
  const prune = pruneAgainst(USER_SETTINGS);
  const installed = setHookGroups(
    USER_SETTINGS,
    "json",
    "settings.json",
    DESIRED,
    isOurs,
    prune,
  ) as string;
  const parsed = JSON.parse(installed);
  assert.equal(parsed.hooks.PostToolUse.length, 2);
  assert.equal(parsed.hooks.PostToolUse[0].matcher, "Edit|Write");
  assert.deepEqual(parsed.hooks.PostToolUse[1], DESIRED.PostToolUse);
  assert.deepEqual(parsed.hooks.UserPromptSubmit, [DESIRED.UserPromptSubmit]);
  assert.equal(parsed.hooks.UserPromptSubmit[0].matcher, undefined);
  assert.deepEqual(Object.keys(parsed), ["permissions", "hooks", "model"]);
  assert.deepEqual(eventsWithOurHooks(installed, "json", "f", isOurs).sort(), [
    "PostToolUse",
    "SessionStart",
    "UserPromptSubmit",
  ]);
  assert.equal(setHookGroups(installed, "json", "f", DESIRED, isOurs, prune), installed);
  assert.equal(setHookGroups(installed, "json", "f", {}, isOurs, prune), USER_SETTINGS);
});

Deno.test("a new settings file holds only Vantage's hooks and empties back to nothing", () => {
  const created = setHookGroups(undefined, "json", "f", DESIRED, isOurs, () => true) as string;
  assert.deepEqual(Object.keys(JSON.parse(created).hooks), Object.keys(DESIRED));
  assert.equal(setHookGroups(created, "json", "f", {}, isOurs, () => true), "{}\n");
  assert.equal(setHookGroups(undefined, "json", "f", {}, isOurs, () => true), undefined);
});

Deno.test("a changed command is updated in place; stale and duplicate groups go", () => {
  const old = "/old/place hook --agent claude-code";
  const text = JSON.stringify(
    {
      hooks: {
        SessionStart: [
          { matcher: "*", hooks: [{ type: "command", command: "echo mine" }] },
          { matcher: "*", hooks: [{ type: "command", command: old, timeout: 5 }] },
          { matcher: "*", hooks: [{ type: "command", command: old, timeout: 5 }] },
        ],
        Stop: [{ hooks: [{ type: "command", command: old }] }],
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: "echo theirs" }, { type: "command", command: old }],
        }],
      },
    },
    null,
    2,
  ) + "\n";
  const updated = JSON.parse(
    setHookGroups(text, "json", "f", DESIRED, isOurs, () => false) as string,
  );
  assert.deepEqual(updated.hooks.SessionStart, [
    { matcher: "*", hooks: [{ type: "command", command: "echo mine" }] },
    DESIRED.SessionStart,
  ]);
  // Stop is no longer wanted: Vantage's group goes, the emptied list stays (prune said keep).
  assert.deepEqual(updated.hooks.Stop, []);
  // A group mixing the user's handler with Vantage's keeps only the user's.
  assert.deepEqual(updated.hooks.PreToolUse, [{
    matcher: "Bash",
    hooks: [{ type: "command", command: "echo theirs" }],
  }]);
});

Deno.test("hooks that are not a list are refused with the path", () => {
  assert.throws(
    () =>
      setHookGroups(
        '{"hooks": {"SessionStart": "x"}}',
        "json",
        "s.json",
        DESIRED,
        isOurs,
        () => true,
      ),
    /s\.json: "hooks\.SessionStart" is not a list of matcher groups/,
  );
  assert.throws(
    () => setHookGroups('{"hooks": 3}', "json", "s.json", DESIRED, isOurs, () => true),
    /"hooks" is not a JSON object/,
  );
});
