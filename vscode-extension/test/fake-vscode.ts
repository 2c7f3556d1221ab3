import type * as vscode from "vscode";
import type { ExtensionContext, VSCode } from "../src/vscode-api.ts";

/**
 * A fake of the parts of the `vscode` module the extension uses, with the
 * editor's side of things recorded (messages shown, URLs opened, the status
 * bar, the tree, the output channel) and a few levers (focus the window,
 * change a setting, answer the next message). VS Code itself cannot be
 * downloaded where the tests run; this is what stands in for it, in bun test
 * (the extension's unit tests) and in Node (the Playwright journey).
 */

type Listener<T> = (value: T) => unknown;

export class FakeEventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (listener: Listener<T>): vscode.Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

const URI_PATTERN = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

export class FakeUri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string,
    private readonly raw: string,
  ) {}
  static parse(value: string): FakeUri {
    const [, scheme = "", authority = "", path = "", query = "", fragment = ""] = URI_PATTERN.exec(value) ?? [];
    const decode = (part: string) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    };
    return new FakeUri(scheme, authority, decode(path), decode(query), decode(fragment), value);
  }
  static file(path: string): FakeUri {
    return new FakeUri("file", "", path, "", "", `file://${path}`);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(_skipEncoding?: boolean): string {
    return this.raw;
  }
}

export interface Shown {
  level: "info" | "warning" | "error";
  message: string;
  items: string[];
}

export class FakeStatusBarItem {
  text = "";
  tooltip: string | undefined;
  command: string | undefined;
  name: string | undefined;
  visible = false;
  constructor(
    readonly id: string,
    readonly alignment: number,
    readonly priority: number,
  ) {}
  show() {
    this.visible = true;
  }
  hide() {
    this.visible = false;
  }
  dispose() {
    this.visible = false;
  }
}

export class FakeTreeItem {
  description?: string;
  tooltip?: string;
  contextValue?: string;
  iconPath?: unknown;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState?: number,
  ) {}
}

export interface FakeEditor {
  vscode: VSCode;
  context: ExtensionContext & { secretValues: Map<string, string> };
  /** Everything shown with showInformationMessage/Warning/Error, in order. */
  shown: Shown[];
  /** Every URL given to env.openExternal, in order. */
  opened: string[];
  /** Every line written to an output channel. */
  logLines: string[];
  statusBar: FakeStatusBarItem[];
  clipboard: { text: string };
  /** The provider registered for VS Code's Accounts, and the URI handler. */
  authProvider(): vscode.AuthenticationProvider;
  uriHandler(): vscode.UriHandler;
  /** The tree views created, by id. */
  treeView(id: string): { provider: vscode.TreeDataProvider<unknown>; message: string | undefined; description: string | undefined };
  /** What the tree shows at its top level: label and description of each item. */
  treeItems(id: string): Promise<{ label: string; description: string | undefined; contextValue: string | undefined; node: unknown }[]>;
  /** The answer the next message with items gets (else undefined, as when it is dismissed). */
  answerNext(item: string): void;
  /** Called with each URL opened externally (the test plays the browser). */
  onOpenExternal: (url: string) => void | Promise<void>;
  /** The window gains (or loses) focus. */
  focusWindow(focused?: boolean): void;
  setConfiguration(section: string, key: string, value: unknown): void;
  executeCommand<T = unknown>(command: string, ...args: unknown[]): Promise<T>;
  registeredCommands(): string[];
  dispose(): void;
}

export function createFakeEditor(options: { workspaceFolders?: string[]; configuration?: Record<string, unknown>; uriScheme?: string } = {}): FakeEditor {
  const shown: Shown[] = [];
  const opened: string[] = [];
  const logLines: string[] = [];
  const statusBar: FakeStatusBarItem[] = [];
  const clipboard = { text: "" };
  const answers: string[] = [];
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const configuration = new Map<string, unknown>(Object.entries(options.configuration ?? {}));
  const windowState = new FakeEventEmitter<{ focused: boolean }>();
  const configChanged = new FakeEventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const foldersChanged = new FakeEventEmitter<unknown>();
  const secretsChanged = new FakeEventEmitter<{ key: string }>();
  const secretValues = new Map<string, string>();
  const trees = new Map<string, { provider: vscode.TreeDataProvider<unknown>; message: string | undefined; description: string | undefined }>();
  const subscriptions: { dispose(): unknown }[] = [];
  let provider: vscode.AuthenticationProvider | undefined;
  let handler: vscode.UriHandler | undefined;

  const show = (level: Shown["level"]) => async (message: string, ...rest: unknown[]) => {
    const items = rest.filter((r): r is string => typeof r === "string");
    shown.push({ level, message, items });
    const answer = items.length ? answers.shift() : undefined;
    return answer !== undefined && items.includes(answer) ? answer : undefined;
  };

  const editor: FakeEditor = {
    vscode: undefined as unknown as VSCode,
    context: undefined as unknown as FakeEditor["context"],
    shown,
    opened,
    logLines,
    statusBar,
    clipboard,
    onOpenExternal: () => {},
    authProvider: () => provider!,
    uriHandler: () => handler!,
    treeView: (id) => trees.get(id)!,
    async treeItems(id) {
      const tree = trees.get(id)!;
      const nodes = ((await tree.provider.getChildren()) ?? []) as unknown[];
      return Promise.all(
        nodes.map(async (node) => {
          const item = (await tree.provider.getTreeItem(node)) as unknown as FakeTreeItem;
          return { label: item.label, description: item.description, contextValue: item.contextValue, node };
        }),
      );
    },
    answerNext: (item) => void answers.push(item),
    focusWindow: (focused = true) => windowState.fire({ focused }),
    setConfiguration(section, key, value) {
      configuration.set(`${section}.${key}`, value);
      configChanged.fire({ affectsConfiguration: (s: string) => `${section}.${key}` === s || `${section}.${key}`.startsWith(`${s}.`) });
    },
    async executeCommand<T>(command: string, ...args: unknown[]) {
      const run = commands.get(command);
      if (!run) throw new Error(`command ${command} is not registered`);
      return (await run(...args)) as T;
    },
    registeredCommands: () => [...commands.keys()],
    dispose() {
      for (const s of subscriptions.splice(0).reverse()) s.dispose();
    },
  };

  const fake = {
    EventEmitter: FakeEventEmitter,
    Uri: FakeUri,
    TreeItem: FakeTreeItem,
    ThemeIcon: class {
      constructor(readonly id: string) {}
    },
    StatusBarAlignment: { Left: 1, Right: 2 },
    TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    window: {
      showInformationMessage: show("info"),
      showWarningMessage: show("warning"),
      showErrorMessage: show("error"),
      async showQuickPick<T>(items: T[]) {
        return items[0];
      },
      async withProgress<R>(_options: unknown, task: (progress: unknown, token: vscode.CancellationToken) => Promise<R>) {
        const cancelled = new FakeEventEmitter<void>();
        return task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: cancelled.event } as unknown as vscode.CancellationToken);
      },
      createStatusBarItem(id: string, alignment: number, priority: number) {
        const item = new FakeStatusBarItem(id, alignment, priority);
        statusBar.push(item);
        return item;
      },
      createOutputChannel(name: string) {
        return { name, appendLine: (line: string) => void logLines.push(line), append: (text: string) => void logLines.push(text), show() {}, dispose() {} };
      },
      createTreeView(id: string, options: { treeDataProvider: vscode.TreeDataProvider<unknown> }) {
        const view = { provider: options.treeDataProvider, message: undefined as string | undefined, description: undefined as string | undefined };
        trees.set(id, view);
        return Object.assign(view, { dispose() {} });
      },
      registerUriHandler(h: vscode.UriHandler) {
        handler = h;
        return { dispose: () => (handler = undefined) };
      },
      onDidChangeWindowState: windowState.event,
    },
    commands: {
      registerCommand(id: string, run: (...args: unknown[]) => unknown) {
        if (commands.has(id)) throw new Error(`command ${id} already exists`);
        commands.set(id, run);
        return { dispose: () => commands.delete(id) };
      },
      executeCommand: (id: string, ...args: unknown[]) => editor.executeCommand(id, ...args),
    },
    authentication: {
      registerAuthenticationProvider(_id: string, _label: string, p: vscode.AuthenticationProvider) {
        provider = p;
        return { dispose: () => (provider = undefined) };
      },
      async getSession(_id: string, scopes: string[], opts: { createIfNone?: boolean } = {}) {
        const [existing] = await provider!.getSessions(scopes, {});
        if (existing || !opts.createIfNone) return existing;
        return provider!.createSession(scopes, {});
      },
    },
    env: {
      uriScheme: options.uriScheme ?? "vscode",
      async asExternalUri(uri: FakeUri) {
        return uri;
      },
      async openExternal(uri: FakeUri) {
        opened.push(uri.toString());
        await editor.onOpenExternal(uri.toString());
        return true;
      },
      clipboard: {
        readText: async () => clipboard.text,
        writeText: async (text: string) => void (clipboard.text = text),
      },
    },
    workspace: {
      workspaceFolders: (options.workspaceFolders ?? []).map((path, index) => ({ uri: FakeUri.file(path), name: path.split("/").pop(), index })),
      getConfiguration(section: string) {
        return { get: <T>(key: string, fallback?: T) => (configuration.get(`${section}.${key}`) as T | undefined) ?? fallback };
      },
      onDidChangeConfiguration: configChanged.event,
      onDidChangeWorkspaceFolders: foldersChanged.event,
    },
  };

  editor.vscode = fake as unknown as VSCode;
  editor.context = {
    subscriptions,
    secretValues,
    secrets: {
      get: async (key: string) => secretValues.get(key),
      store: async (key: string, value: string) => {
        secretValues.set(key, value);
        secretsChanged.fire({ key });
      },
      delete: async (key: string) => {
        secretValues.delete(key);
        secretsChanged.fire({ key });
      },
      keys: async () => [...secretValues.keys()],
      onDidChange: secretsChanged.event,
    },
  } as unknown as FakeEditor["context"];
  return editor;
}
