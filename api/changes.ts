/**
 * Tells whoever keeps derived copies (the page cache) that data changed.
 * Tags name the data: "repositories" (the public list), "repo:<id>" (one
 * repository's pages). In-process only: other processes' caches expire by
 * their max-age, which is the spec's cache age.
 */
export class ChangeFeed {
  private listeners = new Set<(tags: string[]) => void>();

  subscribe(listener: (tags: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(tags: string[]): void {
    for (const listener of this.listeners) listener(tags);
  }
}
