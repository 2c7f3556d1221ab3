import "astro";

declare module "astro" {
  interface AstroClientDirectives {
    /** Hydrate only for signed-in visitors. */
    "client:session"?: boolean;
  }
}
