/**
 * `GET /api/events`: the live event stream, narrowed by `?types=` and
 * resumed after `Last-Event-ID`; 503 on a server that publishes no events.
 *
 * @module
 */
import { excerpt } from "../core/limits.ts";
import type { EventBus, LiveEventType } from "../server/event_bus.ts";
import { readParam } from "./params.ts";
import { HttpError } from "./responses.ts";
import type { Route } from "./router.ts";
import { eventStream } from "./sse.ts";

const LIVE_TYPES: ReadonlySet<string> = new Set<LiveEventType>([
  "hook",
  "messages",
  "session",
  "anomaly",
  "build",
]);

/**
 * The event routes over `events`.
 *
 * @example
 * ```ts ignore
 * const api: SubRouter = { prefix: "/api", routes: [...eventRoutes(bus)] };
 * ```
 */
export function eventRoutes(events: EventBus | undefined): Route[] {
  return [{
    path: "/api/events",
    methods: ["GET"],
    handle: ({ request, url }) => {
      if (events === undefined) {
        throw new HttpError("unavailable", "this server publishes no live events");
      }
      return eventStream(events, request.signal, {
        types: liveTypes(url.searchParams.get("types")),
        afterId: lastEventId(request, url),
      });
    },
  }];
}

function liveTypes(text: string | null): ReadonlySet<LiveEventType> | undefined {
  if (text === null || text.trim() === "") return undefined;
  const types = text.split(",").map((t) => t.trim()).filter((t) => t !== "");
  const unknown = types.filter((t) => !LIVE_TYPES.has(t));
  if (unknown.length > 0) {
    throw new HttpError(
      "invalid_arguments",
      `?types names unknown event type${unknown.length === 1 ? "" : "s"} ${
        unknown.slice(0, 5).map((t) => excerpt(t)).join(", ")
      }${unknown.length > 5 ? ` and ${unknown.length - 5} more` : ""}; types: ${
        [...LIVE_TYPES].join(", ")
      }`,
    );
  }
  return new Set(types as LiveEventType[]);
}

/**
 * The event id to resume after: `Last-Event-ID` (what a reconnecting
 * EventSource sends) or `?last_event_id=`. The ids this server writes are
 * non-negative integers; anything else is a 400 rather than a silent replay
 * from the start.
 */
function lastEventId(request: Request, url: URL): number | undefined {
  const param = readParam(request, url, { header: "Last-Event-ID" }, { query: "last_event_id" });
  if (param === undefined || param.value.trim() === "") return undefined;
  const text = param.value.trim();
  const id = /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) {
    throw new HttpError(
      "invalid_arguments",
      `${param.name} ${excerpt(text)} is not an event id; ids are non-negative integers`,
    );
  }
  return id;
}
