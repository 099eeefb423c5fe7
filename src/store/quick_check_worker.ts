/**
 * The structural check's worker (started by `quickCheckFiles` in
 * quick_check.ts): checks each file it is sent, in order, and answers with
 * what it found.
 *
 * @module
 */
import { workerScope } from "../core/module_worker.ts";
import { checkFile, type FileCheck } from "./quick_check.ts";

/** The files to check, and how many problems to list per file at most. */
export interface QuickCheckRequest {
  /** The files, in order. */
  paths: string[];
  /** Problems listed per file at most. */
  maxErrors: number;
}

/** One check per file, in the order asked. */
export type QuickCheckReply = FileCheck[];

const scope = workerScope<QuickCheckRequest, QuickCheckReply>();

scope.onmessage = (event) => {
  const { paths, maxErrors } = event.data;
  scope.postMessage(paths.map((path) => checkFile(path, maxErrors)));
};
