/**
 * `npm run backup`: one consistent copy of the embedded database into
 * BACKUP_DIR (default DATA_DIR/backups), keeping the newest BACKUP_KEEP
 * (api/ops/backup.ts). Safe while the platform runs. Prints where it wrote
 * the copy and its checksum; `--json` prints the description as one JSON
 * line (the server's scheduled pass runs it so, in a process of its own, so
 * that reading a large database never holds up requests).
 */
import { ConfigError, backupSettings } from "../env.ts";
import { backupDatabase, embeddedDatabaseFile } from "./backup.ts";

if (import.meta.main) {
  try {
    const settings = backupSettings();
    const started = performance.now();
    const info = backupDatabase(embeddedDatabaseFile(settings.databaseUrl), settings.backupDir, settings.keep);
    if (process.argv.includes("--json")) console.log(JSON.stringify({ ...info, ms: Math.round(performance.now() - started) }));
    else {
      console.log(`Backup written: ${info.file}`);
      console.log(`  ${(info.bytes / 1_048_576).toFixed(1)} MB, sha256 ${info.sha256}, indexed block ${info.indexedBlock ?? "none"}, in ${Math.round(performance.now() - started)} ms`);
      console.log(`  the newest ${settings.keep} copies are kept in ${settings.backupDir}; restore one with: npm run restore ${info.file}`);
    }
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : `Backup failed: ${(err as Error).message}`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
}
