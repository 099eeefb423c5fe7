/**
 * Vantage's own table of secret formats: the providers' key shapes, JWTs and PEM private keys.
 *
 * The secretlint preset (see `redact_preset.ts`) knows many of the same providers; these rules
 * are here for what it misses or matches too narrowly for redaction: keys glued to a word
 * (`x_sk-ant-…`, `AWS_KEY_AKIA…`, where the preset wants a word boundary), key formats it
 * does not know (OpenRouter, Replicate, PyPI, DigitalOcean, Square, Supabase, Azure, Telegram,
 * Discord webhooks, Heroku, Firebase), older or shorter forms of the ones it knows, and PEM
 * blocks cut off before their END line.
 *
 * Patterns carry no leading word boundary on purpose (a key glued to a name is still a key);
 * where a short prefix could sit inside an ordinary word, a lookbehind forbids a letter or
 * digit, not `_`.
 *
 * @module
 */

import {
  type Detector,
  literal,
  patternDetector,
  type PatternRule,
  RANK,
  type Span,
} from "./redact_detector.ts";

const lits = (...texts: string[]) => texts.map(literal);

/** The pattern rules, by name (the detector id is `vantage/<name>`). */
export const PROVIDER_RULES: Readonly<Record<string, PatternRule>> = {
  anthropic_key: {
    kind: "anthropic_key",
    anchors: lits("sk-ant-"),
    pattern: /sk-ant-[A-Za-z0-9_-]{16,}/dg,
  },
  openrouter_key: {
    kind: "openrouter_key",
    anchors: lits("sk-or-"),
    pattern: /sk-or-[A-Za-z0-9_-]{20,}/dg,
  },
  openai_key: {
    kind: "openai_key",
    anchors: lits("sk-"),
    // Project, service-account and admin keys; legacy `sk-` + 48 letters and digits.
    pattern:
      /sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|(?<![A-Za-z0-9])sk-[A-Za-z0-9]{32,}(?![-A-Za-z0-9])/dg,
  },
  github_token: {
    kind: "github_token",
    anchors: lits("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    pattern: /gh[pousr]_[A-Za-z0-9_]{30,}|github_pat_[A-Za-z0-9_]{22,}/dg,
  },
  gitlab_token: {
    kind: "gitlab_token",
    anchors: lits(
      "glpat-",
      "gldt-",
      "glrt-",
      "glptt-",
      "glft-",
      "glsoat-",
      "glcbt-",
      "glimt-",
      "glagent-",
      "gloas-",
    ),
    pattern: /gl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent|oas)-[A-Za-z0-9_.-]{20,}/dg,
  },
  aws_access_key_id: {
    kind: "aws_key",
    anchors: lits("AKIA", "ASIA", "ABIA", "ACCA"),
    pattern: /(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/dg,
  },
  google_key: {
    kind: "google_key",
    anchors: lits("AIza"),
    pattern: /AIza[0-9A-Za-z_-]{35}/dg,
  },
  firebase_server_key: {
    kind: "firebase_key",
    anchors: lits(":APA91b"),
    pattern: /(?:AAAA[A-Za-z0-9_-]{7}:)?APA91b[A-Za-z0-9_-]{100,}/dg,
  },
  slack_token: {
    kind: "slack_token",
    anchors: lits("xoxb-", "xoxp-", "xoxa-", "xoxo-", "xoxr-", "xoxe-", "xoxs-", "xapp-"),
    pattern: /xox[abposre]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{10,}/dg,
  },
  slack_webhook: {
    kind: "slack_webhook",
    anchors: lits("hooks.slack.com/"),
    pattern: /hooks\.slack\.com\/(?<v>(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,})/dg,
  },
  stripe_key: {
    kind: "stripe_key",
    anchors: lits("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
    pattern: /[sr]k_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{20,}/dg,
  },
  sendgrid_key: {
    kind: "sendgrid_key",
    anchors: lits("SG."),
    pattern: /SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}/dg,
  },
  mailgun_key: {
    kind: "mailgun_key",
    anchors: lits("key-"),
    pattern: /(?<![A-Za-z0-9])key-[0-9a-f]{32}(?![0-9a-f])/dg,
  },
  npm_token: {
    kind: "npm_token",
    anchors: lits("npm_"),
    pattern: /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{30,}/dg,
  },
  pypi_token: {
    kind: "pypi_token",
    anchors: lits("pypi-AgE"),
    pattern: /pypi-AgE[A-Za-z0-9_-]{50,}/dg,
  },
  docker_token: {
    kind: "docker_token",
    anchors: lits("dckr_pat_", "dckr_oat_"),
    pattern: /dckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}/dg,
  },
  huggingface_token: {
    kind: "huggingface_token",
    anchors: lits("hf_", "api_org_"),
    pattern: /(?<![A-Za-z0-9])(?:hf|api_org)_[A-Za-z0-9]{30,}/dg,
  },
  digitalocean_token: {
    kind: "digitalocean_token",
    anchors: lits("dop_v1_", "doo_v1_", "dor_v1_"),
    pattern: /do[por]_v1_[a-f0-9]{64}/dg,
  },
  square_token: {
    kind: "square_token",
    anchors: lits("EAAA", "sq0atp-", "sq0csp-"),
    pattern: /(?<![A-Za-z0-9])EAAA[A-Za-z0-9_-]{40,}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,}/dg,
  },
  discord_webhook: {
    kind: "discord_webhook",
    anchors: lits("/api/webhooks/"),
    pattern: /discord(?:app)?\.com\/api\/webhooks\/\d{5,30}\/(?<v>[A-Za-z0-9_-]{30,})/dg,
  },
  telegram_token: {
    kind: "telegram_token",
    anchors: lits(":AA"),
    pattern: /(?<!\d)\d{6,12}:AA[A-Za-z0-9_-]{30,}/dg,
  },
  heroku_key: {
    kind: "heroku_key",
    anchors: lits("HRKU-"),
    pattern: /HRKU-[A-Za-z0-9_-]{20,}/dg,
  },
  supabase_key: {
    kind: "supabase_key",
    anchors: lits("sb_secret_", "sbp_"),
    pattern: /sb_secret_[A-Za-z0-9_-]{20,}|(?<![A-Za-z0-9])sbp_[a-f0-9]{40}/dg,
  },
  groq_key: {
    kind: "groq_key",
    anchors: lits("gsk_"),
    pattern: /(?<![A-Za-z0-9])gsk_[A-Za-z0-9]{40,}/dg,
  },
  replicate_token: {
    kind: "replicate_token",
    anchors: lits("r8_"),
    pattern: /(?<![A-Za-z0-9])r8_[A-Za-z0-9]{30,}/dg,
  },
  azure_client_secret: {
    kind: "azure_secret",
    anchors: lits("Q~"),
    pattern: /[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}/dg,
  },
  onepassword_token: {
    kind: "onepassword_token",
    anchors: lits("ops_ey"),
    pattern: /ops_ey[A-Za-z0-9+/=_-]{50,}/dg,
  },
  age_secret_key: {
    kind: "age_key",
    anchors: lits("AGE-SECRET-KEY-1"),
    pattern: /AGE-SECRET-KEY-1[0-9A-Z]{50,}/dg,
  },
  jwt: {
    kind: "jwt",
    anchors: lits("eyJ"),
    pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/dg,
    rank: RANK.structural,
  },
};

// `-----BEGIN RSA PRIVATE KEY-----`, `… EC …`, `… OPENSSH …`, `… ENCRYPTED …`,
// `-----BEGIN PGP PRIVATE KEY BLOCK-----`.
const PEM_BEGIN = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
// What a key body is made of: armor headers such as `Proc-Type: 4,ENCRYPTED` or
// `Version: GnuPG v2` (tried first, or the base64 branch would eat their first word), base64
// runs, and line breaks (also `\n` escaped in JSON text) with their indentation. Spaces
// between words are not a body, so prose after a header stops it. Nothing follows the
// repetition, so the first, greedy match stands and nothing backtracks.
const BODY_RUN =
  /(?:(?<=^|\n|\\n)[A-Za-z-]{2,30}: [^\n\\]{0,200}|[A-Za-z0-9+/=]+|[ \t]*(?:\r?\n|\\[nr])[ \t]*)+/y;
const MIN_BODY = 16;

/**
 * Removes PEM private key blocks: from BEGIN through END, or through the end of the key body
 * when the END line was cut off. A header with no body after it (a mention in prose or code)
 * is left alone. Each character is read once, however many BEGIN lines there are.
 */
function detectPrivateKeys(text: string, _at: readonly number[], spans: Span[]): void {
  PEM_BEGIN.lastIndex = 0;
  for (let match = PEM_BEGIN.exec(text); match !== null; match = PEM_BEGIN.exec(text)) {
    BODY_RUN.lastIndex = PEM_BEGIN.lastIndex;
    const body = BODY_RUN.exec(text);
    const bodyEnd = body === null ? PEM_BEGIN.lastIndex : BODY_RUN.lastIndex;
    const base64 = body === null ? 0 : body[0].replace(/\\[nr]|[^A-Za-z0-9+/=]/g, "").length;
    let stop = bodyEnd;
    if (text.startsWith("-----END ", bodyEnd)) {
      const close = text.indexOf("-----", bodyEnd + 9);
      stop = close !== -1 && close - bodyEnd < 80 ? close + 5 : bodyEnd + 9;
    } else if (base64 < MIN_BODY) {
      PEM_BEGIN.lastIndex = bodyEnd;
      continue;
    }
    spans.push({ start: match.index, end: stop, kind: "private_key", rank: RANK.structural });
    PEM_BEGIN.lastIndex = stop;
  }
}

/** Vantage's format detectors: the provider table and the PEM scanner. */
export const FORMAT_DETECTORS: readonly Detector[] = [
  {
    id: "vantage/private_key",
    origin: "vantage",
    anchors: lits("PRIVATE KEY"),
    detect: detectPrivateKeys,
  },
  ...Object.entries(PROVIDER_RULES).map(([name, rule]) => patternDetector(name, rule)),
];
