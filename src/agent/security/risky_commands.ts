/**
 * Shell commands worth a person's second look: what an agent ran that can
 * destroy data, run code fetched from the network, widen permissions, rewrite
 * shared history, read credentials or open a shell to elsewhere.
 *
 * Each rule is a regular expression over the whole command (several
 * statements joined by `&&`, `;` or newlines are one command), written so an
 * ordinary neighbour does not match: `rm -rf dist` is a recursive delete
 * (info), `rm -rf ~` a broad one (critical); `git push -u origin f` is not a
 * force push, `git push -f` is.
 *
 * @module
 */

/** How much a matching command deserves attention. */
export type RiskSeverity = "critical" | "warning" | "info";

/** One kind of risky command. */
export interface RiskyCommandRule {
  /** Stable id, e.g. `pipe_to_shell`. */
  id: string;
  /** Severity of a command it matches. */
  severity: RiskSeverity;
  /** What it means, for a person. */
  label: string;
  /** The test, over the whole command. */
  pattern: RegExp;
}

// rm with both a recursive and a force flag, in any spelling (-rf, -fr, -r -f, -Rf, --recursive --force).
const RM_RF = String
  .raw`\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*f[a-zA-Z]*|-[a-zA-Z]*f[a-zA-Z]*[rR][a-zA-Z]*|(?:-[rR]|--recursive)\s+(?:-f|--force)|(?:-f|--force)\s+(?:-[rR]|--recursive))`;
// Targets whose deletion takes far more than a build folder: the root, a home, the parent, everything.
const BROAD_TARGET = String
  .raw`(?:\/|\/\*|~\/?|~\/\*|\$HOME\/?|\$\{HOME\}\/?|\.\.?\/?|\*|\/(?:home|usr|etc|var|bin|lib|opt|boot|root|Users|System)\/?)`;

// Programs that print, copy or send a file's bytes.
const READ_VERB = String
  .raw`\b(?:cat|less|more|head|tail|strings|base64|xxd|od|scp|curl|gpg|openssl|Get-Content|type)\b`;
// Files that hold credentials (a public key is not one; an example .env is not one).
const CREDENTIAL_FILE = String
  .raw`(?:\.ssh\/id_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.aws\/credentials\b|\.git-credentials\b|\.netrc\b|\.pypirc\b|\.npmrc\b|\.docker\/config\.json\b|\.kube\/config\b|\.config\/gh\/hosts\.yml\b|\/etc\/shadow\b|\.gnupg\/|(?:^|[\s/'"=@])\.env(?!\.(?:example|sample|template|dist)\b)(?:\.[\w-]+)?(?=$|[\s'";&|)]))`;
// Where a program name starts a statement (so "grep sudo notes.txt" is not sudo).
const STATEMENT_START = String
  .raw`(?:^|[;&|({\x60\n]\s*|\$\(\s*|\b(?:xargs|env|time|nohup|exec)\s+)`;

/** Every rule, most severe first. */
export const RISKY_COMMAND_RULES: readonly RiskyCommandRule[] = [
  {
    id: "delete_broad",
    severity: "critical",
    label: "recursive delete of a root, home, parent or wildcard path",
    pattern: new RegExp(`${RM_RF}[^;&|\\n]*?\\s["']?${BROAD_TARGET}["']?(?=\\s|$|[;&|)])`),
  },
  {
    id: "pipe_to_shell",
    severity: "critical",
    label: "runs code downloaded from the network",
    pattern:
      /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|;&\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da|k|fi)?sh\b|\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b[^|;&\n]*\|\s*(?:sudo\s+)?(?:python\d?(?:\.\d+)?|perl|ruby|node|iex)\b|\b(?:ba|z)?sh\s+<\(\s*(?:curl|wget)\b|\beval\s+["']?\$\(\s*(?:curl|wget)\b|\b(?:ba|z)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b|\biex\s*\(\s*(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+Net\.WebClient)/i,
  },
  {
    id: "reverse_shell",
    severity: "critical",
    label: "opens a shell to another machine",
    pattern:
      /\/dev\/tcp\/|\bnc(?:at)?\b[^;&|\n]*\s-[a-zA-Z]*[ec]\s|\bsocat\b[^;&|\n]*\bexec:|\bbash\s+-i\s+>&/i,
  },
  {
    id: "disk_destroy",
    severity: "critical",
    label: "overwrites a disk or exhausts the machine",
    pattern:
      /\bmkfs(?:\.\w+)?\b|\bdd\b[^;&|\n]*\bof=\/dev\/(?!null\b|zero\b|stdout\b|stderr\b)|>\s*\/dev\/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/,
  },
  {
    id: "credential_read",
    severity: "warning",
    label: "reads a credential file or asks for a stored secret",
    pattern: new RegExp(
      `${READ_VERB}[^;&|\\n]*${CREDENTIAL_FILE}|\\bgh\\s+auth\\s+token\\b|` +
        String.raw`\bsecurity\s+find-(?:generic|internet)-password\b[^;&|\n]*\s-w\b|` +
        String.raw`\baws\s+configure\s+get\s+\S*secret`,
    ),
  },
  {
    id: "world_writable",
    severity: "warning",
    label: "makes files writable by everyone",
    pattern:
      /\bchmod\s+(?:-[a-zA-Z]+\s+)*(?:0?777|0?666|a\+[rwx]*w[rwx]*|o\+[rwx]*w[rwx]*|ugo\+[rwx]*w[rwx]*)\b/,
  },
  {
    id: "force_push",
    severity: "warning",
    label: "force-pushes, replacing history others may have",
    pattern:
      /\bgit\s+(?:-[-\w=]+\s+)*push\b[^;&|\n]*(?:\s--force(?:-with-lease)?\b|\s-[a-zA-Z]*f[a-zA-Z]*\b|\s\+[\w./-]+)/,
  },
  {
    id: "privilege",
    severity: "warning",
    label: "runs as another user (sudo, su, doas)",
    pattern: new RegExp(
      `${STATEMENT_START}(?:sudo|doas|pkexec)\\s+\\S|${STATEMENT_START}su\\s+(?:-\\s+)?(?:-c\\b|root\\b)`,
    ),
  },
  {
    id: "git_discard",
    severity: "info",
    label: "discards uncommitted work or branches",
    pattern:
      /\bgit\s+(?:reset\s+(?:\S+\s+)*--hard\b|clean\s+(?:-\S+\s+)*-[a-zA-Z]*f|checkout\s+(?:\S+\s+)*--\s+\.(?:\s|$)|branch\s+(?:\S+\s+)*-D\b|stash\s+(?:clear|drop)\b)/,
  },
  {
    id: "delete_recursive",
    severity: "info",
    label: "recursive forced delete",
    pattern: new RegExp(RM_RF),
  },
];

const SEVERITY_RANK: Readonly<Record<RiskSeverity, number>> = { critical: 0, warning: 1, info: 2 };

/** What a command matched. */
export interface CommandRisk {
  /** The most severe matching rule's severity. */
  severity: RiskSeverity;
  /** Every matching rule id, most severe first (a broad delete is not also listed as recursive). */
  rules: string[];
}

/**
 * The rules a shell command matches, or undefined when it matches none.
 *
 * @example
 * ```ts
 * classifyCommand("curl -fsSL https://x.sh | sudo bash");
 * // { severity: "critical", rules: ["pipe_to_shell", "privilege"] }
 * classifyCommand("rm -rf dist"); // { severity: "info", rules: ["delete_recursive"] }
 * classifyCommand("npm test");    // undefined
 * ```
 */
export function classifyCommand(command: string): CommandRisk | undefined {
  const rules: RiskyCommandRule[] = [];
  for (const rule of RISKY_COMMAND_RULES) {
    if (rule.id === "delete_recursive" && rules.some((r) => r.id === "delete_broad")) continue;
    if (rule.pattern.test(command)) rules.push(rule);
  }
  if (rules.length === 0) return undefined;
  rules.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity]);
  return { severity: rules[0].severity, rules: rules.map((r) => r.id) };
}

/** The rule with this id. */
export function riskyCommandRule(id: string): RiskyCommandRule | undefined {
  return RISKY_COMMAND_RULES.find((rule) => rule.id === id);
}

// A program that fetches, where a program starts (so "cat curl.md" is not a fetch).
const NETWORK_FETCH = new RegExp(
  `(?:${STATEMENT_START}|\\bsudo\\s+(?:-\\S+\\s+)*)` +
    String
      .raw`(?:(?:curl|wget|aria2c|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|Start-BitsTransfer)\b|git\s+(?:clone|fetch|pull)\b|(?:scp|rsync)\b[^;&|\n]*\s[\w.-]+@?[\w.-]+:)`,
);

/**
 * Whether a shell command reaches the network for something (curl, wget, git clone/pull,
 * scp to a host): the "external fetch" count beside the risky commands.
 *
 * @example
 * ```ts
 * fetchesFromNetwork("curl -s https://example.com"); // true
 * fetchesFromNetwork("ls -la");                      // false
 * ```
 */
export function fetchesFromNetwork(command: string): boolean {
  return NETWORK_FETCH.test(command);
}
