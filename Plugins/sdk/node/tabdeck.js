'use strict';
/**
 * Tabdeck plugin SDK for Node.js (20 or later): one file, no dependencies.
 *
 * A Tabdeck plugin is a subprocess that serves a lazily paged table over JSON lines on
 * stdin/stdout (docs/PROTOCOL.md, protocol v1). Extend `TablePlugin`, describe the columns,
 * serve rows, call `run()`:
 *
 *   const { TablePlugin, column, row } = require('./tabdeck.js');
 *   class Hello extends TablePlugin {
 *     name = 'hello'; version = '1.0.0';
 *     capabilities() { return { sort: true, multiSort: true, filter: true }; }
 *     columns() { return [column('word'), column('len', { type: 'integer' })]; }
 *     allRows() { return ['hello', 'world'].map((w) => row(w, [w, w.length])); }
 *   }
 *   new Hello().run();
 *
 * What `run()` does for you: splits stdin at byte 0x0A only (4 MiB per line; a longer line is
 * discarded and answered -32600, a line that is not JSON -32700 with id null, PROTOCOL 3.4);
 * answers `initialize`; dispatches `open`, `rows`, `children`, `action`, `locate`, `find`,
 * `shutdown`, `close` and `$/cancel`, echoing ids unchanged and answering with the documented
 * error codes; sorts (11.3 "Sort order"), filters (11.3 "What a filter matches"), keeps
 * sections together (10.6) and finds (11.15) for tables that return `allRows()`; writes one
 * compact JSON object per line; points `console.log` and `process.stdout.write` at stderr so
 * that a stray print lands in the tab's log instead of breaking the protocol.
 *
 * Requests are handled one at a time, in arrival order; handlers may be async. `$/cancel` is
 * read at once: a request not started yet is answered -32800, a running one sees
 * `isCancelled()` turn true (long handlers call `checkCancelled()` between steps and await).
 * Logs go to stderr (`logger`, level from TABDECK_LOG_LEVEL), or to the host with `log()`.
 */

const PROTOCOL_VERSION = 1;
/** Longest message line in bytes, not counting the `\n` (PROTOCOL 3.2). */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
const PARSE_ERROR = -32700, INVALID_REQUEST = -32600, METHOD_NOT_FOUND = -32601, INVALID_PARAMS = -32602,
  INTERNAL_ERROR = -32603, REQUEST_CANCELLED = -32800, UNKNOWN_TABLE = -32001, NOT_SUPPORTED = -32002,
  ACTION_FAILED = -32003;
const COLUMN_TYPES = ['text', 'integer', 'decimal', 'bool', 'date', 'enum'];
const FIELD_TYPES = ['text', 'integer', 'number', 'boolean', 'enum'];
const LOG_LEVELS = ['debug', 'info', 'warning', 'error'];

// ------------------------------------------------------------------------------ errors

/** Throw from a handler to answer the request with a JSON-RPC error. */
class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
  toJSON() {
    const e = { code: this.code, message: this.message };
    if (this.data !== undefined && this.data !== null) e.data = this.data;
    return e;
  }
}

/** The host cancelled the request (`$/cancel`): answered -32800. */
class Cancelled extends RpcError {
  constructor(message = 'request cancelled') { super(REQUEST_CANCELLED, message); }
}

// ------------------------------------------------------------------------------ builders

/** A column description (PROTOCOL 10.2). Options: type, title, values (enum), width, align,
 * sortable, decimals, nulls ('smallest' | 'largest'), order ('protocol' | 'casefold' | 'source'). */
function column(id, options = {}) {
  const { title = id, type = 'text', ...rest } = options;
  if (!COLUMN_TYPES.includes(type)) throw new Error(`column ${id}: unknown type ${type}`);
  if (type === 'enum' && !(rest.values && rest.values.length)) throw new Error(`column ${id}: an enum column needs values`);
  if (rest.decimals !== undefined && type !== 'decimal') throw new Error(`column ${id}: decimals is for decimal columns`);
  const col = { id, title, type };
  for (const k of ['values', 'width', 'align', 'sortable', 'decimals', 'nulls', 'order', 'collation']) {
    if (rest[k] !== undefined) col[k] = rest[k];
  }
  return col;
}

/** A row (10.5): a stable id and one cell per column. Options: section, detail, hasChildren. */
function row(id, cells, options = {}) {
  const r = { id: String(id), cells: Array.from(cells) };
  for (const k of ['section', 'detail', 'hasChildren']) if (options[k] !== undefined) r[k] = options[k];
  return r;
}

/** A section (10.6): id, title, optional footer and count. */
function sectionSpec(id, title = id, options = {}) {
  const s = { id, title };
  if (options.footer !== undefined) s.footer = options.footer;
  if (options.count !== undefined) {
    if (!Number.isInteger(options.count) || options.count < 0) throw new Error(`section ${id}: count must be an integer >= 0`);
    s.count = options.count;
  }
  return s;
}

/** An action (10.7). Options: confirm, destructive, rows ('none' | 'one' | 'many'), multiple,
 * hotkey (one character), input (a list of `field`s). */
function actionSpec(id, title = id, options = {}) {
  const rows = options.rows || (options.multiple ? 'many' : 'one');
  if (!['none', 'one', 'many'].includes(rows)) throw new Error(`action ${id}: rows must be none, one or many`);
  if (options.hotkey !== undefined && [...options.hotkey].length !== 1) throw new Error(`action ${id}: hotkey must be one character`);
  const a = { id, title, confirm: !!options.confirm, multiple: rows === 'many', rows };
  if (options.destructive) a.destructive = true;
  if (options.hotkey !== undefined) a.hotkey = options.hotkey;
  if (options.input && options.input.length) a.input = options.input.map((f) => ({ ...f }));
  return a;
}

/** A field of an action's form: type text, integer, number, boolean or enum (values). */
function field(id, title = id, options = {}) {
  const { type = 'text', values, required, default: dflt } = options;
  if (!FIELD_TYPES.includes(type)) throw new Error(`field ${id}: unknown type ${type}`);
  const f = { id, title, type };
  if (values) f.values = Array.from(values);
  if (required) f.required = true;
  if (dflt !== undefined) f.default = dflt;
  return f;
}

/** The action's `input` checked against its fields, defaults filled in; -32602 naming the field. */
function validateInput(spec, input) {
  input = input == null ? {} : input;
  if (typeof input !== 'object' || Array.isArray(input)) throw new RpcError(INVALID_PARAMS, 'input must be an object');
  const fields = spec.input || [];
  for (const k of Object.keys(input)) {
    if (!fields.some((f) => f.id === k)) throw new RpcError(INVALID_PARAMS, `unknown field: ${k}`, { field: k });
  }
  const out = {};
  for (const f of fields) {
    const v = input[f.id] !== undefined && input[f.id] !== null ? input[f.id] : f.default;
    if (v === undefined || v === null) {
      if (f.required) throw new RpcError(INVALID_PARAMS, `${f.title}: required`, { field: f.id });
      continue;
    }
    const ok = { text: typeof v === 'string', integer: Number.isInteger(v), number: Number.isFinite(v),
      boolean: typeof v === 'boolean', enum: (f.values || []).includes(v) }[f.type];
    if (!ok) throw new RpcError(INVALID_PARAMS, `${f.title}: expected ${f.type}, got ${JSON.stringify(v)}`, { field: f.id });
    out[f.id] = v;
  }
  return out;
}

// ------------------------------------------------------------------------------ sort order (11.3)

const INTEGER_TEXT = /^-?[0-9]+$/;
const DECIMAL_TEXT = /^-?[0-9]+(\.[0-9]+)?$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** A date or timestamp (10.3) as milliseconds since 1970 UTC (a date alone: its midnight UTC; no
 * zone: UTC; digits past the millisecond dropped), or null when it is not one. */
function dateMillis(text) {
  const m = DATE_TEXT.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let ms = Date.UTC(+y, +mo - 1, +d, +(h || 0), +(mi || 0), +(s || 0), +((frac || '').slice(0, 3).padEnd(3, '0')));
  if (Number.isNaN(ms)) return null;
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const offset = (+digits.slice(0, 2) * 60 + +(digits.slice(2, 4) || 0)) * 60000;
    ms -= zone[0] === '-' ? -offset : offset;
  }
  return ms;
}

/** An exact number as a BigInt coefficient over 10^scale. A double is taken at its exact binary
 * value (as the host does), a number text at its digits. */
function exactOf(v) {
  if (typeof v === 'string') {
    const neg = v[0] === '-';
    const [i, f = ''] = (neg ? v.slice(1) : v).split('.');
    const coef = BigInt(i + f);
    return { coef: neg ? -coef : coef, scale: f.length };
  }
  if (Number.isInteger(v) && Number.isSafeInteger(v)) return { coef: BigInt(v), scale: 0 };
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const bits = view.getBigUint64(0);
  const neg = bits >> 63n === 1n;
  const exp = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & 0xfffffffffffffn;
  let e = exp - 1075;
  if (exp === 0) e = -1074; else mant |= 1n << 52n;
  let coef, scale;
  if (e >= 0) { coef = mant << BigInt(e); scale = 0; } else { coef = mant * 5n ** BigInt(-e); scale = -e; }
  return { coef: neg ? -coef : coef, scale };
}

function compareExact(a, b) {
  const x = exactOf(a), y = exactOf(b);
  const m = Math.max(x.scale, y.scale);
  const p = x.coef * 10n ** BigInt(m - x.scale), q = y.coef * 10n ** BigInt(m - y.scale);
  return p < q ? -1 : p > q ? 1 : 0;
}

/** Compares two texts by Unicode scalar values (UTF-8 byte order), not UTF-16 code units. */
function compareText(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral characters) sort after U+E000..U+FFFF in scalar order.
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** ASCII letters to lower case, nothing else (the filter's and `casefold`'s folding). */
function asciiLower(s) {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** A non-null cell as [rank, value] in its column's order: rank 1 numbers (and bools, enum
 * positions, dates), 2 texts; a decimal's -Infinity 0.5, Infinity 1.5, NaN 1.75. */
function keyOf(value, col) {
  const type = (col && col.type) || 'text';
  if (typeof value === 'boolean') return [1, value ? 1 : 0];
  if (typeof value === 'number') return [1, value];
  if (typeof value !== 'string') return [2, JSON.stringify(value)];
  if (type === 'integer' && INTEGER_TEXT.test(value)) return [1, value];
  if (type === 'decimal') {
    if (DECIMAL_TEXT.test(value)) return [1, value];
    if (value === '-Infinity') return [0.5, 0];
    if (value === 'Infinity') return [1.5, 0];
    if (value === 'NaN') return [1.75, 0];
  }
  if (type === 'enum') {
    const at = (col.values || []).indexOf(value);
    if (at >= 0) return [1, at];
  }
  if (type === 'date') {
    const ms = dateMillis(value);
    if (ms !== null) return [1, ms];
  }
  if (type === 'text' && col && col.order === 'casefold') return [2, asciiLower(value)];
  return [2, value];
}

/**
 * Compares two cells of column `col` ascending by the protocol's sort order (11.3): numbers
 * exactly, exact-number strings too (10.3); enums by position; dates by instant; bools false
 * first; text by UTF-8 bytes or ASCII-folded with `order: casefold`; null the smallest, or
 * the largest with `nulls: largest`. Returns -1, 0 or 1.
 */
function compareCells(a, b, col) {
  const an = a === null || a === undefined, bn = b === null || b === undefined;
  if (an || bn) {
    if (an && bn) return 0;
    const largest = col && col.nulls === 'largest';
    return (an ? -1 : 1) * (largest ? -1 : 1);
  }
  const [ra, va] = keyOf(a, col), [rb, vb] = keyOf(b, col);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra === 2) return compareText(va, vb);
  if (ra !== 1) return 0;
  if (typeof va === 'number' && typeof vb === 'number') {
    if (va !== vb) return va < vb ? -1 : 1;
    return Number.isSafeInteger(va) && Number.isSafeInteger(vb) ? 0 : compareExact(va, vb);
  }
  // As doubles first (parsing rounds monotonically); only equal ones need the digits.
  const x = Number(va), y = Number(vb);
  if (x !== y) return x < y ? -1 : 1;
  return compareExact(va, vb);
}

/** `sort` checked against the columns: -32602 for a bad key or unknown column, -32002 for a
 * column declared `sortable: false`. A missing direction is 'asc'. */
function validateSort(sort, columns) {
  if (sort === undefined || sort === null) return [];
  if (!Array.isArray(sort)) throw new RpcError(INVALID_PARAMS, 'sort must be a list of {column, direction}');
  return sort.map((key, i) => {
    if (!key || typeof key.column !== 'string') throw new RpcError(INVALID_PARAMS, `bad sort key: sort[${i}]`);
    const direction = key.direction === undefined ? 'asc' : key.direction;
    if (direction !== 'asc' && direction !== 'desc') throw new RpcError(INVALID_PARAMS, `bad sort direction: ${direction}`);
    const col = columns.find((c) => c.id === key.column);
    if (!col) throw new RpcError(INVALID_PARAMS, `unknown sort column: ${key.column}`);
    if (col.sortable === false) throw new RpcError(NOT_SUPPORTED, `column ${key.column} is not sortable`);
    return { column: key.column, direction };
  });
}

/** The rows sorted by `sort` (most significant key first); `desc` reverses its key's whole
 * order, nulls included; rows equal in every key keep their input order in both directions. */
function sortRows(rows, sort, columns) {
  const keys = (sort || []).map((k) => {
    const i = columns.findIndex((c) => c.id === k.column);
    if (i < 0) throw new RpcError(INVALID_PARAMS, `unknown sort column: ${k.column}`);
    return { i, col: columns[i], sign: k.direction === 'desc' ? -1 : 1 };
  });
  const indexed = rows.map((r, n) => [r, n]);
  if (!keys.length) return rows.slice();
  indexed.sort(([a, n], [b, m]) => {
    for (const { i, col, sign } of keys) {
      const c = compareCells(a.cells[i], b.cells[i], col);
      if (c !== 0) return sign * c;
    }
    return n - m;
  });
  return indexed.map(([r]) => r);
}

/** The rows grouped by section in the order of `sections`, each sorted on its own (10.6);
 * rows of no known section come last. */
function sortRowsInSections(rows, sort, columns, sections) {
  const order = new Map(sections.map((s, i) => [s.id, i]));
  const groups = sections.map(() => []).concat([[]]);
  for (const r of rows) groups[order.has(r.section) ? order.get(r.section) : sections.length].push(r);
  return groups.flatMap((g) => sortRows(g, sort, columns));
}

/** Copies of `sections` with `count` from the rows' `section`. */
function countSections(rows, sections) {
  const counts = new Map();
  for (const r of rows) counts.set(r.section, (counts.get(r.section) || 0) + 1);
  return sections.map((s) => ({ ...s, count: counts.get(s.id) || 0 }));
}

// ------------------------------------------------------------------------------ filter (11.3) and find (11.15)

/** A cell's text for the filter: a string as sent, a number as JSON writes it, true or false;
 * null has none. */
function cellText(cell) {
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'string') return cell;
  return JSON.stringify(cell);
}

/** Whether a row has a cell whose text contains `text`, ignoring ASCII case. */
function rowMatches(r, text) {
  const needle = asciiLower(text);
  return r.cells.some((c) => {
    const t = cellText(c);
    return t !== null && asciiLower(t).includes(needle);
  });
}

/** The rows the filter `text` keeps, in their order. */
function filterRows(rows, text) {
  return rows.filter((r) => rowMatches(r, text));
}

/** `find` over the rows of a view (in its order): `{offset, row, wrapped}` of the first row from
 * `from` on (or back, with `backward`) holding `text` by the filter's rule, going on from the
 * other end with `wrap`; `{offset: null, row: null, wrapped: false}` when none does. */
function findRow(rows, { text, from = 0, backward = false, wrap = false }) {
  const n = rows.length;
  const none = { offset: null, row: null, wrapped: false };
  if (!n) return none;
  const start = Math.min(from, n - 1);
  const parts = [];
  if (backward) {
    parts.push([start, -1]);
    if (wrap && from < n && start + 1 < n) parts.push([n - 1, start]);
  } else if (from >= n) {
    if (wrap) parts.push(null, [0, n]);
  } else {
    parts.push([from, n]);
    if (wrap && from > 0) parts.push([0, from]);
  }
  for (let p = 0; p < parts.length; p++) {
    if (!parts[p]) continue;
    const [a, end] = parts[p];
    for (let i = a; backward ? i > end : i < end; i += backward ? -1 : 1) {
      if (rowMatches(rows[i], text)) return { offset: i, row: rows[i].id, wrapped: p > 0 };
    }
  }
  return none;
}

// ------------------------------------------------------------------------------ tables

/**
 * What every table has: a title, columns, a count and rows. Override `columns()` and either
 * `allRows()` (the SDK then filters, sorts, keeps sections together, pages, locates and finds)
 * or `rows(offset, limit, sort, filter)` (+ `count()`) for big data. Methods may be async.
 */
class TableSource {
  constructor() { this.title = this.title || ''; }
  columns() { throw new Error('override columns()'); }
  allRows() { throw new Error('override allRows() or rows()'); }
  /** The row count, or null when unknown. */
  async count() { return (await this.allRows()).length; }
  /** The sections (see `sectionSpec`); rows name theirs with `row(..., {section})`. */
  sections() { return null; }
  /** The actions (see `actionSpec`). */
  actions() { return []; }

  /** One page: a list of rows, or `{rows, total, sections}`. The default filters `allRows()`,
   * sorts (within each section) and sends the sections' counts under a filter. */
  async rows(offset, limit, sort, filter) {
    let data = await this.allRows();
    const filtered = typeof filter === 'string' && filter !== '';
    if (filtered) data = filterRows(data, filter);
    const columns = await this.columns();
    const sections = await this.sections();
    if (sections && sections.length) data = sortRowsInSections(data, sort, columns, sections);
    else if (sort && sort.length) data = sortRows(data, sort, columns);
    const page = data.slice(offset, offset + limit);
    if (!filtered) return page;
    return { rows: page, total: data.length, sections: sections && sections.length ? countSections(data, sections) : undefined };
  }

  /** Every row of the view, through `rows`. */
  async view(sort, filter) {
    const got = await this.rows(0, 2 ** 31 - 1, sort, filter);
    return Array.isArray(got) ? got : got.rows;
  }

  /** `locate`: [id, offset] of the first of `ids` in the view, or null. */
  async locate(ids, sort, filter) {
    const at = new Map((await this.view(sort, filter)).map((r, i) => [String(r.id), i]));
    for (const id of ids) if (at.has(id)) return [id, at.get(id)];
    return null;
  }

  /** `find` (11.15): `{offset, row, wrapped}`, by default from the whole view (`findRow`). */
  async find(request) {
    return findRow(await this.view(request.sort, request.filter), request);
  }

  /** The table description without `table` (the SDK adds it). */
  async describe() {
    const desc = { title: this.title, columns: await this.columns(), total: await this.count() };
    const actions = await this.actions();
    if (actions && actions.length) desc.actions = actions;
    let sections = await this.sections();
    if (sections && sections.length) {
      if (sections.some((s) => s.count === undefined)) {
        try { sections = countSections(await this.allRows(), sections); } catch (e) { /* placed from loaded rows */ }
      }
      desc.sections = sections;
    }
    return desc;
  }
}

/** A child table (from `children`): the SDK gives it a handle and routes requests to it. */
class Table extends TableSource {
  action(action, rows, input) { throw new RpcError(NOT_SUPPORTED, 'this table has no actions'); }
  children(row) { throw new RpcError(NOT_SUPPORTED, 'this table has no children'); }
  close() {}
}

/** Writes a diagnostic line to stderr (never stdout), above the level of TABDECK_LOG_LEVEL. */
function makeLogger(name) {
  const levels = { debug: 10, info: 20, warning: 30, error: 40 };
  const min = levels[(process.env.TABDECK_LOG_LEVEL || 'info').toLowerCase()] || 20;
  const at = (level) => (...parts) => {
    if (levels[level] >= min) process.stderr.write(`${new Date().toISOString()} ${name} ${level.toUpperCase()} ${parts.join(' ')}\n`);
  };
  return { debug: at('debug'), info: at('info'), warning: at('warning'), error: at('error') };
}

/**
 * The base class of a plugin; the plugin is its root table. Set `name` and `version`, override
 * `capabilities()`, `columns()` and `allRows()` (or `rows()`), then call `run()`.
 */
class TablePlugin extends TableSource {
  constructor() {
    super();
    this.name = 'plugin';
    this.version = '0.0.0';
    this.rootTable = 'root';
    this.args = {};
    this.host = {};
    this._tables = new Map();
    this._nextHandle = 1;
    this._queue = [];
    this._pending = new Set();
    this._cancelled = new Set();
    this._current = null;
    this._working = false;
    this._initialized = false;
    this._opened = false;
    this._write = null;
  }

  get logger() { return this._logger || (this._logger = makeLogger(this.name)); }

  // -------------------------------------------------------------------------- to override
  /** Capabilities for `initialize` (9.2): sort, multiSort, filter, sections, children,
   * actions, live, locate, find. Default: none (the host sorts and filters). */
  capabilities() { return {}; }
  /** `open`: `args` is the tab's args; return null (the plugin describes itself) or a
   * description. Throw RpcError(INVALID_PARAMS, why) for bad args. */
  open(args) { return null; }
  /** The child Table of `row` (declare `children`, mark rows `hasChildren`). */
  children(table, row) { throw new RpcError(NOT_SUPPORTED, 'this plugin has no children'); }
  /** Runs an action on rows (ids) of the root table; returns a message, `{message, invalidate}`
   * or nothing; throw RpcError(ACTION_FAILED, why) on failure. */
  action(table, action, rows, input) { throw new RpcError(NOT_SUPPORTED, 'this plugin has no actions'); }
  /** `close` of the root table. */
  close(table) {}
  /** `shutdown` and the end of input: stop timers and children here. */
  onShutdown() {}

  // -------------------------------------------------------------------------- notifications
  notify(method, params) { this._send({ jsonrpc: '2.0', method, params }); }
  badge(value) { this.notify('badge', { value }); }
  /** Fetch again: the whole table, or only `rows`; `total` and `sections` as they are now. */
  invalidate(table, { rows, total, sections } = {}) {
    const p = { table: table || this.rootTable };
    if (rows) p.rows = rows.map(String);
    if (total !== undefined) p.total = total;
    if (sections) p.sections = sections;
    this.notify('invalidate', p);
  }
  /** Progress of long work (restarts the host's request timers); `done === total` ends it. */
  progress(done, total = null, message) {
    const p = { done, total };
    if (message !== undefined) p.message = message;
    this.notify('progress', p);
  }
  status(text) { this.notify('status', { text }); }
  /** A log line with a level in the tab's log (12.5); for free-form lines use `logger`. */
  log(message, level = 'info') {
    if (!LOG_LEVELS.includes(level)) throw new Error(`bad log level ${level}`);
    this.notify('log', { level, message });
  }

  // -------------------------------------------------------------------------- cancellation
  /** Whether the host cancelled the request being handled now. */
  isCancelled() { return this._current !== null && this._cancelled.has(this._current); }
  /** Throws Cancelled when the current request was cancelled. */
  checkCancelled() { if (this.isCancelled()) throw new Cancelled(); }

  // -------------------------------------------------------------------------- main loop
  /**
   * Serves the protocol until the input ends; resolves with the exit code (0). Without
   * arguments it uses the process's stdin and stdout, and sends stray stdout writes to stderr.
   */
  run({ input, output } = {}) {
    if (output) {
      this._write = (text) => output.write(text);
    } else {
      const write = process.stdout.write.bind(process.stdout);
      this._write = (text) => write(text);
      process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
      console.log = console.info = console.debug = (...a) => process.stderr.write(a.join(' ') + '\n');
    }
    input = input || process.stdin;
    return new Promise((resolve) => {
      let parts = [], size = 0, discarding = false;
      input.on('data', (chunk) => {
        let start = 0;
        for (;;) {
          const nl = chunk.indexOf(10, start);
          const end = nl < 0 ? chunk.length : nl;
          if (!discarding) {
            if (size + end - start > MAX_LINE_BYTES) { discarding = true; parts = []; size = 0; } else { parts.push(chunk.subarray(start, end)); size += end - start; }
          }
          if (nl < 0) break;
          if (discarding) { discarding = false; this._tooLong(); } else { this._receive(Buffer.concat(parts)); }
          parts = []; size = 0; start = nl + 1;
        }
      });
      input.on('end', async () => {
        if (size && !discarding) this._receive(Buffer.concat(parts));
        await this._drained();
        this._closing();
        resolve(0);
      });
    });
  }

  // -------------------------------------------------------------------------- internals
  _send(msg) {
    if (!this._write) return false;
    let text = JSON.stringify(msg);
    if (Buffer.byteLength(text) > MAX_LINE_BYTES) {
      this.logger.error(`not sending a message over ${MAX_LINE_BYTES} bytes`);
      if (!('id' in msg) || 'method' in msg) return false;
      text = JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: INTERNAL_ERROR, message: 'response exceeds the line limit' } });
    }
    try { this._write(text + '\n'); } catch (e) { this.logger.error(`stdout closed: ${e.message}`); return false; }
    return true;
  }

  _sendError(id, err) { this._send({ jsonrpc: '2.0', id, error: err.toJSON() }); }

  _tooLong() {
    this.logger.error(`discarded an input line longer than ${MAX_LINE_BYTES} bytes`);
    this._sendError(null, new RpcError(INVALID_REQUEST, `message longer than ${MAX_LINE_BYTES} bytes`));
  }

  _receive(buf) {
    let text = buf.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (!text.trim()) return;
    let msg;
    try { msg = JSON.parse(text); } catch (e) { this._sendError(null, new RpcError(PARSE_ERROR, `parse error: ${e.message}`)); return; }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) { this._sendError(null, new RpcError(INVALID_REQUEST, 'a message must be a JSON object')); return; }
    const hasId = 'id' in msg, id = msg.id;
    if (hasId && !(typeof id === 'string' || Number.isInteger(id))) { this._sendError(null, new RpcError(INVALID_REQUEST, 'id must be an integer or a string')); return; }
    if (typeof msg.method !== 'string') {
      if (hasId && ('result' in msg || 'error' in msg)) return; // a response: the host sends none
      this._sendError(hasId ? id : null, new RpcError(INVALID_REQUEST, 'method must be a string'));
      return;
    }
    if (msg.method === '$/cancel') {
      const target = msg.params && msg.params.id;
      if (this._pending.has(target)) this._cancelled.add(target);
      return;
    }
    if (hasId) this._pending.add(id);
    this._queue.push({ id, method: msg.method, params: msg.params, isRequest: hasId });
    this._pump();
  }

  async _pump() {
    if (this._working) return;
    this._working = true;
    while (this._queue.length) {
      const req = this._queue.shift();
      if (!req.isRequest) {
        if (req.method === 'close') this._close(req.params && req.params.table);
        continue;
      }
      this._current = req.id;
      try {
        if (this._cancelled.has(req.id)) throw new Cancelled();
        const result = await this._dispatch(req.method, req.params);
        this._send({ jsonrpc: '2.0', id: req.id, result: result === undefined ? null : result });
      } catch (e) {
        if (!(e instanceof RpcError)) this.logger.error(`${req.method} failed: ${e && e.stack || e}`);
        this._sendError(req.id, e instanceof RpcError ? e : new RpcError(INTERNAL_ERROR, `${e && e.name}: ${e && e.message}`));
      } finally {
        this._current = null;
        this._pending.delete(req.id);
        this._cancelled.delete(req.id);
      }
    }
    this._working = false;
    if (this._idle) this._idle();
  }

  _drained() {
    return this._working || this._queue.length ? new Promise((r) => { this._idle = r; }) : Promise.resolve();
  }

  _closing() {
    if (this._shut) return;
    this._shut = true;
    try { this.onShutdown(); } catch (e) { this.logger.error(`onShutdown: ${e.message}`); }
  }

  async _dispatch(method, params) {
    if (method === 'initialize') return this._initialize(params || {});
    if (method === 'shutdown') { this._closing(); return null; }
    const handler = { open: this._open, rows: this._rows, children: this._children, action: this._action,
      locate: this._locate, find: this._find, close: (p) => { this._close(p.table); return null; } }[method];
    if (!handler) throw new RpcError(METHOD_NOT_FOUND, `method not found: ${method}`);
    if (!this._initialized) throw new RpcError(INVALID_REQUEST, 'initialize first');
    if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) throw new RpcError(INVALID_PARAMS, 'params must be an object');
    return handler.call(this, params || {});
  }

  async _initialize(params) {
    if (this._initialized) throw new RpcError(INVALID_REQUEST, 'already initialized');
    this.host = params.host || {};
    if (params.protocolVersion !== PROTOCOL_VERSION) this.logger.warning(`host speaks protocol ${params.protocolVersion}, this plugin ${PROTOCOL_VERSION}`);
    this._initialized = true;
    return { name: this.name, version: this.version, protocolVersion: PROTOCOL_VERSION, capabilities: { ...(await this.capabilities()) } };
  }

  async _caps() { return (await this.capabilities()) || {}; }

  _source(table) {
    if (typeof table !== 'string') throw new RpcError(INVALID_PARAMS, 'table must be a string');
    if (this._opened && table === this.rootTable) return this;
    const child = this._tables.get(table);
    if (!child) throw new RpcError(UNKNOWN_TABLE, `unknown table: ${table}`);
    return child;
  }

  async _open(params) {
    const args = params.args == null ? {} : params.args;
    if (typeof args !== 'object' || Array.isArray(args)) throw new RpcError(INVALID_PARAMS, 'args must be an object');
    this.args = args;
    let desc = await this.open(args);
    desc = desc ? { ...desc } : await this.describe();
    if (typeof desc.table !== 'string') desc = { table: this.rootTable, ...desc };
    this._checkDescription(desc);
    this.rootTable = desc.table;
    this._opened = true;
    return desc;
  }

  _checkDescription(desc) {
    const ids = (desc.columns || []).map((c) => c && c.id);
    if (!ids.length || ids.some((i) => typeof i !== 'string') || new Set(ids).size !== ids.length) {
      throw new RpcError(INTERNAL_ERROR, 'plugin bug: a table needs columns with unique string ids');
    }
  }

  /** The validated sort and filter of a request: a sort only with `sort` (one key without
   * `multiSort`), a filter only with `filter`. */
  async _order(params, columns) {
    const caps = await this._caps();
    let sort = caps.sort ? validateSort(params.sort, columns) : [];
    if (sort.length > 1 && !caps.multiSort) sort = sort.slice(0, 1);
    const filter = caps.filter && typeof params.filter === 'string' ? params.filter : null;
    return { sort, filter };
  }

  async _rows(params) {
    const source = this._source(params.table);
    const offset = params.offset === undefined ? 0 : params.offset, limit = params.limit;
    for (const [name, v] of [['offset', offset], ['limit', limit]]) {
      if (!Number.isInteger(v) || v < 0) throw new RpcError(INVALID_PARAMS, `${name} must be a non-negative integer`);
    }
    const columns = await source.columns();
    const { sort, filter } = await this._order(params, columns);
    const got = await source.rows(offset, limit, sort, filter);
    const page = Array.isArray(got) ? got : got.rows;
    const total = Array.isArray(got) || got.total === undefined ? await source.count() : got.total;
    for (const r of page) {
      if (!r || r.id === undefined || !Array.isArray(r.cells)) throw new RpcError(INTERNAL_ERROR, 'plugin bug: a row needs id and cells');
      if (r.cells.length !== columns.length) throw new RpcError(INTERNAL_ERROR, `plugin bug: row ${r.id} has ${r.cells.length} cells for ${columns.length} columns`);
    }
    const result = {};
    if ('generation' in params) result.generation = params.generation;
    Object.assign(result, { offset, rows: page.map((r) => (typeof r.id === 'string' ? r : { ...r, id: String(r.id) })), total });
    if (!Array.isArray(got) && got.sections) result.sections = got.sections;
    return this._fit(result);
  }

  /** Shortens a page so that its line stays under the limit (the host asks for the rest). */
  _fit(result) {
    const fits = (n) => Buffer.byteLength(JSON.stringify({ ...result, rows: result.rows.slice(0, n) })) + 64 <= MAX_LINE_BYTES;
    if (fits(result.rows.length)) return result;
    let lo = 0, hi = result.rows.length;
    while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (fits(mid)) lo = mid; else hi = mid - 1; }
    if (lo === 0) throw new RpcError(INTERNAL_ERROR, `row ${result.rows[0].id} is too large for one line`);
    return { ...result, rows: result.rows.slice(0, lo), more: true };
  }

  async _locate(params) {
    if (!(await this._caps()).locate) throw new RpcError(METHOD_NOT_FOUND, 'method not found: locate (no locate capability)');
    const source = this._source(params.table);
    if (!Array.isArray(params.rows)) throw new RpcError(INVALID_PARAMS, 'rows must be a list of row ids');
    const { sort, filter } = await this._order(params, await source.columns());
    const found = await source.locate(params.rows.map(String), sort, filter);
    return found ? { row: found[0], offset: found[1] } : { row: null };
  }

  async _find(params) {
    if (!(await this._caps()).find) throw new RpcError(METHOD_NOT_FOUND, 'method not found: find (no find capability)');
    const source = this._source(params.table);
    if (typeof params.text !== 'string' || !params.text) throw new RpcError(INVALID_PARAMS, 'text must be a non-empty string');
    if (!Number.isInteger(params.from) || params.from < 0) throw new RpcError(INVALID_PARAMS, 'from must be an integer >= 0');
    const { sort, filter } = await this._order(params, await source.columns());
    const found = await source.find({ text: params.text, from: params.from, backward: !!params.backward, wrap: !!params.wrap, sort, filter });
    const result = {};
    if ('generation' in params) result.generation = params.generation;
    return Object.assign(result, found);
  }

  async _children(params) {
    const source = this._source(params.table);
    if (params.row === undefined) throw new RpcError(INVALID_PARAMS, 'row must be a row id');
    const child = source === this ? await this.children(params.table, String(params.row)) : await source.children(String(params.row));
    if (!(child instanceof Table)) throw new RpcError(INTERNAL_ERROR, 'plugin bug: children() must return a Table');
    const handle = `t${this._nextHandle++}`;
    const desc = { table: handle, ...(await child.describe()) };
    this._checkDescription(desc);
    this._tables.set(handle, child);
    child.handle = handle;
    return desc;
  }

  async _action(params) {
    const source = this._source(params.table);
    if (typeof params.action !== 'string') throw new RpcError(INVALID_PARAMS, 'action must be a string');
    if (!Array.isArray(params.rows)) throw new RpcError(INVALID_PARAMS, 'rows must be a list of row ids');
    const spec = (await source.actions()).find((a) => a.id === params.action);
    if (!spec) throw new RpcError(INVALID_PARAMS, `unknown action: ${params.action}`);
    const kind = spec.rows || (spec.multiple === false ? 'one' : 'many');
    let rows = params.rows.map(String);
    if (kind === 'none') rows = [];
    else if (rows.length > 1 && kind !== 'many') throw new RpcError(INVALID_PARAMS, `action ${params.action} applies to one row at a time`);
    const input = validateInput(spec, params.input);
    const out = source === this ? await this.action(params.table, params.action, rows, input) : await source.action(params.action, rows, input);
    if (out === undefined || out === null) return {};
    return typeof out === 'string' ? { message: out } : { ...out };
  }

  _close(table) {
    const child = this._tables.get(table);
    try {
      if (child) { this._tables.delete(table); child.close(); } else if (table === this.rootTable) this.close(table);
    } catch (e) { this.logger.error(`close: ${e.message}`); }
  }
}

module.exports = {
  PROTOCOL_VERSION, MAX_LINE_BYTES,
  PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR, REQUEST_CANCELLED,
  UNKNOWN_TABLE, NOT_SUPPORTED, ACTION_FAILED,
  RpcError, Cancelled, column, row, sectionSpec, actionSpec, field, validateInput,
  compareCells, compareText, dateMillis, validateSort, sortRows, sortRowsInSections, countSections,
  cellText, rowMatches, filterRows, findRow,
  TableSource, Table, TablePlugin,
};
