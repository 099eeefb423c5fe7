/**
 * The `docs` cassette: YAMS-style document memory — add, search, grep,
 * list, get, graph, restore, export, download, verify, repair and the rest.
 *
 * @module
 */
import type { Cassette } from "../../ops/operation.ts";
import { addOperation } from "./add.ts";
import { deleteOperation } from "./delete.ts";
import { downloadOperation } from "./download.ts";
import { exportOperation } from "./export.ts";
import { getOperation } from "./get.ts";
import { graphOperation } from "./graph.ts";
import { grepOperation } from "./grep.ts";
import { listOperation } from "./list.ts";
import { listCollectionsOperation } from "./list_collections.ts";
import { listSnapshotsOperation } from "./list_snapshots.ts";
import { repairOperation } from "./repair.ts";
import { restoreOperation } from "./restore.ts";
import { searchOperation } from "./search.ts";
import { semanticDedupeOperation } from "./semantic_dedupe.ts";
import { statusOperation } from "./status.ts";
import { suggestContextOperation } from "./suggest_context.ts";
import { updateOperation } from "./update.ts";
import { verifyOperation } from "./verify.ts";

/** The built-in `docs` cassette. */
export const docsCassette: Cassette = {
  name: "docs",
  source: "builtin",
  description:
    "Document memory: content-addressed storage with dedup, keyword/fuzzy/semantic/hybrid search, grep, code graph, snapshots, collections, restore, and verification and repair of the store.",
  operations: [
    searchOperation,
    grepOperation,
    listOperation,
    getOperation,
    graphOperation,
    statusOperation,
    listCollectionsOperation,
    listSnapshotsOperation,
    suggestContextOperation,
    semanticDedupeOperation,
    verifyOperation,
    addOperation,
    updateOperation,
    deleteOperation,
    restoreOperation,
    exportOperation,
    downloadOperation,
    repairOperation,
  ],
};
