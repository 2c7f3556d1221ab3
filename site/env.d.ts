/// <reference types="astro/client" />

declare namespace App {
  interface Locals {
    runtime?: import("./lib/runtime.ts").RuntimeConfig;
    services?: import("../api/services/index.ts").Services;
  }
}
declare module "*.svg?url" { const url: string; export default url; }
