import assert from "node:assert/strict";
import { extractCodeGraph } from "../../../src/docs/code_graph.ts";
import { assertConsistent, assertEdge } from "./graph_asserts.ts";

Deno.test("Go: imports, structs, interfaces, methods, embedding and calls", () => {
  const source = `package main

import (
	"fmt"
	str "strings"
	"github.com/acme/tool/v2"
)

import "os"

type Reader interface {
	io.Reader
	Read(p []byte) (int, error)
}

type Server struct {
	*Base
	name string \`json:"name"\`
}

type ID string

func (s *Server) Start() error {
	fmt.Println(str.ToUpper(s.name))
	return s.helper()
}

func (s *Server) helper() error { return nil }

func main() {
	s := &Server{}
	s.Start()
	tool.Run()
	os.Exit(0)
}
`;
  const graph = extractCodeGraph("cmd/main.go", source);
  assertConsistent(graph);
  const file = "file:cmd/main.go";
  const sym = (name: string) => `symbol:cmd/main.go#${name}`;
  for (const spec of ["fmt", "strings", "github.com/acme/tool/v2", "os"]) {
    assertEdge(graph, "IMPORTS", file, `module:${spec}`);
  }
  assertEdge(graph, "DEFINES", file, sym("Reader"));
  assertEdge(graph, "DEFINES", sym("Reader"), sym("Reader.Read"));
  assertEdge(graph, "DEFINES", file, sym("Server"));
  assertEdge(graph, "DEFINES", file, sym("ID"));
  assertEdge(graph, "DEFINES", sym("Server"), sym("Server.Start"));
  assertEdge(graph, "DEFINES", sym("Server"), sym("Server.helper"));
  assertEdge(graph, "DEFINES", file, sym("main"));
  assert.equal(graph.nodes.find((n) => n.key === sym("Server"))?.type, "struct");
  assert.equal(graph.nodes.find((n) => n.key === sym("Reader"))?.type, "interface");
  assertEdge(graph, "INHERITS", sym("Reader"), "ref:io.Reader");
  assertEdge(graph, "INHERITS", sym("Server"), "ref:Base");
  assertEdge(graph, "CALLS", sym("Server.Start"), "ref:fmt.Println");
  assertEdge(graph, "CALLS", sym("Server.Start"), "ref:strings.ToUpper");
  assertEdge(graph, "CALLS", sym("Server.Start"), sym("Server.helper"));
  assertEdge(graph, "CALLS", sym("main"), sym("Server.Start"));
  assertEdge(graph, "CALLS", sym("main"), "ref:github.com/acme/tool/v2.Run");
  assertEdge(graph, "CALLS", sym("main"), "ref:os.Exit");
});
