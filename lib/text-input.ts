/**
 * Text a person typed, as the platform accepts it: no control characters. C0 (U+0000-U+001F, NUL, tab and line
 * breaks included), DEL (U+007F) and C1 (U+0080-U+009F) have no place in a search, a name or a label; a NUL in
 * particular cuts a string short in C code below us (SQLite's full-text index) and hides text from whoever reads
 * it. Shared by the API (explore, feeds, saved searches) and the site's pages.
 */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/** Whether `text` holds no control character. */
export const hasNoControlCharacter = (text: string): boolean => !CONTROL_CHARACTER.test(text);

/** `text` with its control characters taken out: for echoing a refused value back into a form. */
export const withoutControlCharacters = (text: string): string => text.replace(new RegExp(CONTROL_CHARACTER.source, "g"), "");
