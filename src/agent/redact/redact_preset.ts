/**
 * The maintained rule set behind redaction: `@secretlint/secretlint-rule-preset-recommend`
 * (MIT, plain JavaScript regular expressions, no runtime dependencies, no network), driven
 * directly rather than through secretlint's file-linting engine.
 *
 * Each preset rule is a creator: given a context, it returns a `file(source)` handler that
 * reports ranges through `context.report`. Vantage gives every rule a small context of its own
 * whose reports land in the spans of the string being redacted, and runs a rule only when the
 * prefilter saw one of the anchors listed for it below. Every rule of the preset must be
 * listed, as used or as left out with the reason: a new preset version with a new rule fails
 * the redaction tests until it is.
 *
 * A report's range is trusted only as far as the matched text it names: two rules report the
 * start of the whole match with the length of the secret, so the span is taken from where the
 * secret text (the message's TOKEN/KEY/… value) actually sits.
 *
 * @module
 */

import { rules as presetRules } from "@secretlint/secretlint-rule-preset-recommend";
import { type Detector, literal, RANK, type Span, URL_PASSWORD_ANCHOR } from "./redact_detector.ts";
import { type Anchor, caselessSource } from "./redact_prefilter.ts";

/** How Vantage uses one rule of the preset. */
export type PresetRuleUse =
  | {
    /** The marker's kind. */
    kind: string;
    /** Literals every match of the rule contains. */
    anchors: readonly Anchor[];
    /** Options passed to the rule. */
    options?: Record<string, unknown>;
  }
  | {
    /** Why the rule is left out. */
    skip: string;
  };

const lits = (...texts: string[]) => texts.map(literal);

/** Every rule of the preset, by id, with its use in Vantage. */
export const PRESET_RULES: Readonly<Record<string, PresetRuleUse>> = {
  "@secretlint/secretlint-rule-aws": {
    // Only its secret-access-key-in-context rule runs by default; access key ids are
    // Vantage's rule (glued forms), and its account-id rule would redact ids that are not
    // secrets.
    kind: "aws_secret_key",
    // Its pattern is `…SECRET_ACCESS_KEY` then `:`, `=` or `=>`.
    anchors: [{
      lead: "=:",
      behind: `${caselessSource("access")}_?${caselessSource("key")}["']?\\s{0,8}`,
    }],
  },
  "@secretlint/secretlint-rule-gcp": {
    skip: "it inspects .json and .p12 files by path; a service account's private key is caught " +
      "by the PEM rule and by its private_key name",
  },
  "@secretlint/secretlint-rule-privatekey": {
    kind: "private_key",
    anchors: lits("PRIVATE KEY"),
  },
  "@secretlint/secretlint-rule-npm": {
    kind: "npm_token",
    anchors: lits("npm_", "x-oauth-basic"),
  },
  "@secretlint/secretlint-rule-basicauth": { kind: "password", anchors: [URL_PASSWORD_ANCHOR] },
  "@secretlint/secretlint-rule-slack": {
    kind: "slack_token",
    anchors: lits("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxr-", "xapp-", "hooks.slack.com/"),
  },
  "@secretlint/secretlint-rule-sendgrid": { kind: "sendgrid_key", anchors: lits("SG.") },
  "@secretlint/secretlint-rule-shopify": {
    kind: "shopify_token",
    anchors: lits("shpat_", "shpca_", "shppa_", "shpss_"),
  },
  "@secretlint/secretlint-rule-stripe": {
    kind: "stripe_key",
    anchors: lits("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
  },
  "@secretlint/secretlint-rule-github": {
    kind: "github_token",
    anchors: lits("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
  },
  "@secretlint/secretlint-rule-gitlab": { kind: "gitlab_token", anchors: lits("glpat-") },
  "@secretlint/secretlint-rule-grafana": { kind: "grafana_token", anchors: lits("glc_", "glsa_") },
  "@secretlint/secretlint-rule-openai": { kind: "openai_key", anchors: lits("sk-") },
  "@secretlint/secretlint-rule-anthropic": { kind: "anthropic_key", anchors: lits("sk-ant-") },
  "@secretlint/secretlint-rule-groq": { kind: "groq_key", anchors: lits("gsk_") },
  "@secretlint/secretlint-rule-huggingface": { kind: "huggingface_token", anchors: lits("hf_") },
  "@secretlint/secretlint-rule-linear": { kind: "linear_key", anchors: lits("lin_api_") },
  "@secretlint/secretlint-rule-notion": { kind: "notion_token", anchors: lits("ntn_") },
  "@secretlint/secretlint-rule-1password": {
    kind: "onepassword_token",
    anchors: lits("ops_ey"),
  },
  "@secretlint/secretlint-rule-database-connection-string": {
    kind: "password",
    anchors: [URL_PASSWORD_ANCHOR],
  },
  "@secretlint/secretlint-rule-hashicorp-vault": {
    kind: "vault_token",
    anchors: lits("hvs.", "hvb.", "hvr."),
  },
  "@secretlint/secretlint-rule-vercel": {
    kind: "vercel_token",
    anchors: lits("vcp_", "vci_", "vca_", "vcr_", "vck_"),
  },
  "@secretlint/secretlint-rule-databricks": { kind: "databricks_token", anchors: lits("dapi") },
  "@secretlint/secretlint-rule-docker": { kind: "docker_token", anchors: lits("dckr_pat_") },
  "@secretlint/secretlint-rule-figma": { kind: "figma_token", anchors: lits("figd_") },
  "@secretlint/secretlint-rule-cloudflare": {
    kind: "cloudflare_token",
    anchors: lits("cfk_", "cfut_", "cfat_"),
  },
  "@secretlint/secretlint-rule-tailscale": { kind: "tailscale_key", anchors: lits("tskey-") },
  "@secretlint/secretlint-rule-filter-comments": {
    skip: "its secretlint-disable comments would let an ingested payload switch redaction off",
  },
};

// The slice of secretlint's rule API that the preset's rules use.
interface PresetMessage {
  id: string;
  data: Record<string, unknown>;
}
interface PresetContext {
  createTranslator(
    messages: unknown,
  ): (id: string, data?: Record<string, unknown>) => PresetMessage;
  report(descriptor: { message: PresetMessage; range: readonly number[] }): void;
  ignore(descriptor: unknown): void;
  registerRule(rule: unknown): void;
  sharedOptions: Record<string, never>;
}
interface PresetSource {
  content: string;
  contentType: "text";
  ext: string;
  filePath?: string;
}
interface PresetRule {
  meta: { id: string };
  create(
    context: PresetContext,
    options: Record<string, unknown>,
  ): { file?: (source: PresetSource) => unknown };
}

/** The preset's rule ids, in the preset's order. */
export const presetRuleIds: readonly string[] = (presetRules as PresetRule[]).map((rule) =>
  rule.meta.id
);

// Data keys whose value is a whole URL or URI around the secret, not the secret alone.
const WIDE_KEYS = new Set(["URI", "URL", "CREDENTIAL"]);

// The spans of the string being redacted; set while one rule's handler runs. Redaction is
// synchronous and the rules call nothing back, so one slot is enough.
let current: { text: string; kind: string; spans: Span[] } | undefined;

function record(range: readonly number[], data: Record<string, unknown>): void {
  if (current === undefined) return;
  const { text, kind, spans } = current;
  let start = range[0];
  let end = range[1];
  if (!(start >= 0 && end > start && end <= text.length)) return;
  let wide = false;
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== "string" || value.length < 4) continue;
    const at = text.indexOf(value, start);
    if (at === -1 || at > end) continue;
    start = at;
    end = at + value.length;
    wide = WIDE_KEYS.has(key);
    break;
  }
  spans.push({ start, end, kind, rank: RANK.provider, wide });
}

function detectorFor(rule: PresetRule, use: Exclude<PresetRuleUse, { skip: string }>): Detector {
  const context: PresetContext = {
    createTranslator: () => (id, data) => ({ id, data: data ?? {} }),
    report: (descriptor) => record(descriptor.range, descriptor.message?.data ?? {}),
    ignore: () => {},
    registerRule: () => {},
    sharedOptions: {},
  };
  const handler = rule.create(context, { ...use.options });
  return {
    id: rule.meta.id,
    origin: "secretlint",
    anchors: use.anchors,
    detect(text, _at, spans) {
      if (handler.file === undefined) return;
      current = { text, kind: use.kind, spans };
      try {
        const result = handler.file({ content: text, contentType: "text", ext: "" });
        if (result instanceof Promise) result.catch(() => {});
      } catch {
        // A rule that breaks on some input must not stop ingestion; Vantage's own rules
        // still run on the same text.
      } finally {
        current = undefined;
      }
    },
  };
}

/** The preset's rules Vantage uses, as detectors (rules missing from the table are not run). */
export const PRESET_DETECTORS: readonly Detector[] = (presetRules as PresetRule[]).flatMap(
  (rule) => {
    const use = PRESET_RULES[rule.meta.id];
    return use === undefined || "skip" in use ? [] : [detectorFor(rule, use)];
  },
);
