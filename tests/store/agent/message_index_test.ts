import assert from "node:assert/strict";
import { join } from "node:path";
import type { TranscriptMessage as MessageInput } from "../../../src/model/agent_records.ts";
import { insertMessages, maxMessageId } from "../../../src/store/agent/messages.ts";
import { openDatabase } from "../../../src/store/database.ts";
import {
  countMatches,
  MessageIndexer,
  openMessageIndex,
} from "../../../src/store/agent/message_index.ts";
import { TOOL_TEXT_INDEXED } from "../../../src/store/agent/schema.ts";

function message(
  key: string,
  type: MessageInput["message_type"],
  text: string,
  toolName?: string,
): MessageInput {
  const m: MessageInput = {
    agent: "claude_code",
    session_id: "s1",
    ts: 1_767_000_000_000,
    role: type === "tool_result" ? "tool" : "assistant",
    message_type: type,
    text,
    message_key: key,
  };
  if (toolName !== undefined) m.tool_name = toolName;
  return m;
}

Deno.test("the index worker indexes a tool message by its name and the head of its text, counted in UTF-16 units", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "vantage.db");
  const db = openDatabase(path);
  const indexer = await MessageIndexer.start(path, () => maxMessageId(db));
  try {
    // 😀 takes two UTF-16 units: after 1,000 of them the head is full, though SQLite counts
    // only 1,000 characters there.
    const emoji = "😀".repeat(TOOL_TEXT_INDEXED / 2);
    const plain = "x ".repeat(TOOL_TEXT_INDEXED / 2 - 2);
    insertMessages(db, [
      message("a", "tool_result", `${emoji} beyondastral`, "Read"),
      // The head ends inside this word: its first four letters are what gets indexed.
      message("b", "tool_result", `${plain}wxyzcut beyondplain`),
      message("c", "tool_use", "npm test", "Bash"),
      message("d", "assistant", `${emoji} ${"y ".repeat(TOOL_TEXT_INDEXED)} assistanttail`),
    ]);
    await indexer.caughtUp();
    const index = openMessageIndex(path);
    try {
      assert.equal(countMatches(index, "beyondastral"), 0);
      assert.equal(countMatches(index, "beyondplain"), 0);
      assert.equal(countMatches(index, "wxyzcut"), 0);
      assert.equal(countMatches(index, "wxyz"), 1);
      assert.equal(countMatches(index, "read"), 1);
      assert.equal(countMatches(index, "bash"), 1);
      assert.equal(countMatches(index, "npm"), 1);
      // Other messages are indexed whole.
      assert.equal(countMatches(index, "assistanttail"), 1);
    } finally {
      index.close();
    }
  } finally {
    indexer.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
