import "astro";

declare module "astro" {
  interface AstroClientDirectives {
    /** Hydrate for signed-in visitors, or when requestHydration(value) is called. */
    "client:session"?: boolean | string;
  }
}
