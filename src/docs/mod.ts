/**
 * The docs feature's public face: document memory. Adding files and folders
 * (content-defined chunks, packs, deduplicated bytes), search (keyword,
 * fuzzy, semantic, hybrid), grep, the code graph, snapshots and restore,
 * verification and repair, and two cassettes: `docs` (the documents) and
 * `doc_session` (document sessions that scope them). Code outside
 * `src/docs/` imports the feature from here.
 *
 * @module
 */

export { docsCassette } from "./ops/cassette.ts";
export { docSessionCassette } from "./doc_session_ops/cassette.ts";
export { ingestFiles, ingestInline, ingestPath, newSnapshotId } from "./doc_ingest.ts";
export type {
  IngestedDocument,
  IngestOptions,
  IngestReport,
  InlineDocument,
} from "./doc_ingest.ts";
export { documentBytes } from "./doc_read.ts";
export { readContentFrom } from "./store_content.ts";
export { ingestInlineOnServer } from "./server_ingest/server_ingest.ts";
export type { ServerDocs } from "./server_ingest/server_docs.ts";
export { sha256Hex } from "./content_hash.ts";
export { DEFAULT_FUSION, rankDocuments } from "./doc_search.ts";
export type { FusionSettings, Ranking, SearchMode, SearchRequest } from "./doc_search.ts";
export { grepDocuments } from "./doc_grep.ts";
export type { GrepReport, GrepRequest } from "./doc_grep.ts";
export { rankOnServer } from "./server_search/server_ranking.ts";
export type { SearchDocs } from "./server_search/server_ranking.ts";
export { grepOnServer } from "./server_search/server_grep.ts";
export { suggestOnServer } from "./server_search/server_suggest.ts";
export { walkGraph } from "./doc_graph.ts";
export type { GraphResult, GraphWalk } from "./doc_graph.ts";
export { verifyStore } from "./doc_verify.ts";
export type { VerifyOptions } from "./doc_verify.ts";
export { repairStore, repairUnopenedStore } from "./doc_repair.ts";
export type { RepairOptions, RepairReport } from "./doc_repair.ts";
export { catchUpSearchData, storeMissingVectors } from "./search_upkeep.ts";
export type { UpkeepReport } from "./search_upkeep.ts";
export { checkStructureAtStart } from "./store_structure.ts";
export type { Embedder } from "./embedder.ts";
export { configuredEmbedder } from "./embedding_config.ts";
export { HashedEmbedder } from "./hashed_embedder.ts";
export type { HashedEmbedderOptions } from "./hashed_embedder.ts";
export { HttpEmbedder } from "./http_embedder.ts";
export type { HttpEmbedderOptions, HttpEmbeddingApi } from "./http_embedder.ts";
export { closeVectorIndexes } from "./vector_index.ts";
