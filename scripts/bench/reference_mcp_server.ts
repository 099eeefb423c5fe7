/**
 * The reference for the start-up benchmark: the smallest useful MCP server
 * the SDK allows — one tool, registered with zod, on stdio.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "reference", version: "1.0.0" });
server.registerTool("echo", {
  description: "Echoes a message",
  inputSchema: { message: z.string() },
}, ({ message }) => ({ content: [{ type: "text", text: message }] }));
await server.connect(new StdioServerTransport());
