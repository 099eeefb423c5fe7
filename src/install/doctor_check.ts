/**
 * What one `vantage doctor` check reports, shared by the checks' modules.
 *
 * @module
 */

/** How a check came out. */
export type CheckStatus = "ok" | "warn" | "fail";

/** One check and its result. */
export interface DoctorCheck {
  /** What was checked. */
  name: string;
  /** How it came out. */
  status: CheckStatus;
  /** What was found. */
  detail: string;
  /** What to do about it, for warnings and failures. */
  fix?: string;
}
