/**
 * Assembly: a file's facts resolved into nodes and edges. Definitions become `symbol:` nodes,
 * names bound by imports `ref:` nodes, and a call is kept only when it resolves to one of those.
 *
 * @module
 */
import type { Call, Definition, Facts } from "./facts.ts";
import type { CodeGraph, GraphEdge, GraphNode, NodeType, Relation } from "./types.ts";

class GraphBuilder {
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();

  node(key: string, type: NodeType, name: string, line: number): string {
    if (!this.nodes.has(key)) this.nodes.set(key, { key, type, name, line });
    return key;
  }

  edge(from: string, to: string, relation: Relation, line: number): void {
    const id = `${from}\u0000${to}\u0000${relation}`;
    if (!this.edges.has(id)) this.edges.set(id, { from, to, relation, line });
  }
}

/** The graph of the file at `path` (forward slashes) from what was found in it. */
export function assemble(path: string, facts: Facts): CodeGraph {
  const graph = new GraphBuilder();
  const fileKey = graph.node(`file:${path}`, "file", path, 1);
  const symbolKey = (name: string) => `symbol:${path}#${name}`;
  const defined = new Map<string, Definition>();
  for (const definition of facts.definitions) {
    if (!defined.has(definition.name)) defined.set(definition.name, definition);
  }
  const membersByName = new Map<string, string[]>();
  for (const name of defined.keys()) {
    const dot = name.lastIndexOf(".");
    if (dot === -1) continue;
    const simple = name.slice(dot + 1);
    membersByName.set(simple, [...(membersByName.get(simple) ?? []), name]);
  }

  for (const spec of [...facts.imports].sort((a, b) => a.line - b.line)) {
    const moduleKey = graph.node(`module:${spec.spec}`, "module", spec.spec, spec.line);
    graph.edge(fileKey, moduleKey, spec.relation, spec.line);
  }
  for (const definition of defined.values()) {
    const key = graph.node(
      symbolKey(definition.name),
      definition.type,
      definition.name,
      definition.line,
    );
    const owner = definition.container !== undefined && defined.has(definition.container)
      ? symbolKey(definition.container)
      : fileKey;
    graph.edge(owner, key, "DEFINES", definition.line);
  }

  const resolveName = (name: string, line: number): string => {
    if (defined.has(name)) return symbolKey(name);
    const binding = facts.bindings.get(name);
    const target = binding && binding.target !== "default" ? binding.target : name;
    return graph.node(`ref:${target}`, "reference", target, line);
  };
  for (const relation of facts.heritage) {
    const from = resolveName(relation.from, relation.line);
    graph.edge(from, resolveName(relation.target, relation.line), relation.relation, relation.line);
  }

  const resolveCall = (call: Call): string | undefined => {
    const { name, receiver, className } = call;
    if (receiver === undefined) {
      if (defined.get(name)?.container === undefined && defined.has(name)) return symbolKey(name);
      if (className && defined.has(`${className}.${name}`)) {
        return symbolKey(`${className}.${name}`);
      }
      if (defined.has(name)) return symbolKey(name);
      const binding = facts.bindings.get(name);
      if (binding) {
        const target = binding.target === "default" ? name : binding.target;
        return graph.node(`ref:${target}`, "reference", target, call.line);
      }
      return undefined;
    }
    if (receiver === "this" || receiver === "self" || receiver === "Self") {
      const member = className ? `${className}.${name}` : undefined;
      return member && defined.has(member) ? symbolKey(member) : undefined;
    }
    if (defined.has(`${receiver}.${name}`)) return symbolKey(`${receiver}.${name}`);
    const binding = facts.bindings.get(receiver);
    if (binding) {
      const base = binding.target === "default" ? receiver : binding.target;
      const target = `${base}.${name}`;
      return graph.node(`ref:${target}`, "reference", target, call.line);
    }
    // A method called on some variable: only trust it when one member has that name.
    const candidates = membersByName.get(name);
    return candidates?.length === 1 ? symbolKey(candidates[0]) : undefined;
  };
  for (const call of facts.calls) {
    const to = resolveCall(call);
    if (!to) continue;
    const from = call.from !== undefined && defined.has(call.from) ? symbolKey(call.from) : fileKey;
    graph.edge(from, to, "CALLS", call.line);
  }

  for (const link of [...facts.links].sort((a, b) => a.line - b.line)) {
    const key = graph.node(link.key, link.type, link.name, link.line);
    if (key !== fileKey) graph.edge(fileKey, key, "LINKS_TO", link.line);
  }
  return { nodes: [...graph.nodes.values()], edges: [...graph.edges.values()] };
}
