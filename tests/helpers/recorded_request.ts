/** How the scripted model servers read and record each request they get. */

/** One request as a scripted server saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Parsed JSON body (`undefined` when there was none; the raw text when it was not JSON). */
  body: unknown;
  /** `true` when the request consumed a script turn. */
  main: boolean;
}

/** Reads a request's body (JSON when it parses) into a record, not yet marked as main. */
export async function recordRequest(request: Request): Promise<RecordedRequest> {
  let body: unknown = undefined;
  if (request.method === "POST") {
    const text = await request.text();
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { method: request.method, path: new URL(request.url).pathname, body, main: false };
}
