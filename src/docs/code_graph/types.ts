/**
 * The shapes the code graph is made of: node and edge kinds, nodes, edges and one file's graph.
 *
 * @module
 */

/** Edge kinds, named as the graph query API spells them. */
export type Relation =
  | "IMPORTS"
  | "INCLUDES"
  | "DEFINES"
  | "CALLS"
  | "INHERITS"
  | "IMPLEMENTS"
  | "LINKS_TO";

/** Node kinds. */
export type NodeType =
  | "file"
  | "module"
  | "function"
  | "method"
  | "class"
  | "interface"
  | "struct"
  | "trait"
  | "enum"
  | "type"
  | "reference"
  | "url"
  | "wiki";

/** A graph node. Keys are unique within one {@linkcode CodeGraph}. */
export interface GraphNode {
  /** Stable identity, e.g. `symbol:src/a.ts#Parser.parse`. */
  key: string;
  /** What the node stands for. */
  type: NodeType;
  /** Display name: path, symbol name, module specifier, URL or page. */
  name: string;
  /** 1-based line where the node is defined or first mentioned in this file. */
  line: number;
}

/** A directed relation. At most one edge per (from, to, relation); `line` is the first seen. */
export interface GraphEdge {
  /** Key of the source node. */
  from: string;
  /** Key of the target node. */
  to: string;
  /** Relation kind. */
  relation: Relation;
  /** 1-based line where the relation appears. */
  line: number;
}

/** Nodes and edges extracted from one file. */
export interface CodeGraph {
  /** Every node referenced by an edge, plus the file itself and its definitions. */
  nodes: GraphNode[];
  /** Relations grouped by kind (imports, definitions, inheritance, calls, links), each in source order. */
  edges: GraphEdge[];
}
