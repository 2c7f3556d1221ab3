import { createApp } from "astro/app/entrypoint";

const app = createApp();

export interface RenderContext {
  locals: object;
  clientAddress?: string;
  /** Reads a prerendered error page (404/500) from disk instead of over HTTP. */
  prerenderedErrorPageFetch: (url: string) => Promise<Response>;
}

export function handler(request: Request, context: RenderContext): Promise<Response> {
  return app.render(request, {
    addCookieHeader: true,
    locals: context.locals,
    clientAddress: context.clientAddress,
    prerenderedErrorPageFetch: context.prerenderedErrorPageFetch,
  });
}
