import { Hono } from "hono";
import type { AppBindings, AppContext } from "./context.ts";
import { ApiError, ErrorCode } from "./errors.ts";
import { limitBody } from "./middleware/body-limit.ts";
import { errorResponse, onError } from "./middleware/errors.ts";
import { edge } from "./middleware/edge.ts";
import { healthRoutes } from "./routes/health/get.ts";

export interface CreateAppOptions {
  /** Serves everything that is not `/api/*`: the Astro site. Absent in API-only tests. */
  site?: (app: Hono<AppBindings>) => void;
}

/** The one place the HTTP application is put together. */
export function createApp(ctx: AppContext, options: CreateAppOptions = {}): Hono<AppBindings> {
  const app = new Hono<AppBindings>();

  app.use(edge(ctx.env, ctx.log));
  app.use("/api/*", limitBody(ctx.env.MAX_BODY_BYTES));
  app.onError(onError);

  app.route("/api/health", healthRoutes(ctx));

  app.all("/api/*", (c) =>
    errorResponse(
      c,
      new ApiError({ code: ErrorCode.NOT_FOUND, error: "Not Found", message: `No API endpoint at ${c.req.method} ${c.req.path}` }),
    ),
  );

  options.site?.(app);
  return app;
}
