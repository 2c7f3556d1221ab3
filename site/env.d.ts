/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    runtime?: import("../lib/runtime-config.ts").RuntimeConfig;
    services?: import("../api/services/index.ts").Services;
    /** The signed-in user for guarded pages (never call it on cached pages). */
    viewer?: () => Promise<import("../api/services/users/user-object.ts").UserObject | null>;
  }
}
declare module "*.svg?url" { const url: string; export default url; }
