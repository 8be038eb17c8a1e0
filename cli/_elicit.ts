// Private to cli/: the command line's answer to a server's elicitation. On a
// terminal (standard input and standard error both) the person is asked on
// stderr: a form field by field, a URL to visit with the offer to open it in
// `$BROWSER`, its question ended (as visited) once the server says the visit
// is complete. Ctrl-C or the end of input cancels the question (the command
// goes on; the server hears `cancel`), and the person may decline. Without a
// terminal every elicitation is declined at once, and stderr says why, once
// per server. Everything a server wrote is quoted where it is shown (control
// characters escaped, cut to a bound). The library checks the content
// against the form's schema again before it is sent.
//
// One question at a time on the terminal, across servers too: the library
// serializes one server's elicitations, and this handler the terminal's.
//
// The command line declares no sampling (it has no model, and declaring a
// capability only to refuse it is worse than not declaring it) and no roots.

import {
  decodeElicitRequest,
  type ElicitChoice,
  type ElicitField,
} from "../codec/server_requests.ts";
import { quote } from "../codec/quote.ts";
import type { ElicitationAnswer, ElicitationRequest, ElicitHandler } from "../client/handlers.ts";
import type { Output } from "./_output.ts";
import type { Keys } from "./_terminal.ts";

/** The most characters of a server's message an elicitation shows. */
export const ELICIT_MESSAGE_CHARS = 500;
/** The most characters of a field's title, or of a choice's, shown. */
export const ELICIT_TITLE_CHARS = 80;
/** The most characters of a field's description shown. */
export const ELICIT_DESCRIPTION_CHARS = 300;
/** The most characters of a URL to visit shown (the whole URL is what `$BROWSER` opens). */
export const ELICIT_URL_CHARS = 2_000;
/** How many answers that do not fit one question may get before the elicitation is cancelled. */
export const ELICIT_TRIES = 5;

/** Where and how the terminal asks. */
export type TerminalElicitOptions = {
  output: Output;
  keys: Keys;
  /** `$BROWSER`, when it is set: a URL to visit may be opened with it. */
  browser?: string;
  /** Opens a URL with `browser`, spawned without a shell, the URL one argument. */
  open?: (url: string) => void;
};

type Answer = ElicitationAnswer;
type Content = NonNullable<Answer["content"]>;
type Value = Content[string];

// A question's outcome short of a value: Ctrl-C, the end of input, too many
// misfits, or the server withdrew it.
type Stop = { stop: "interrupt" | "end" | "tries" | "withdrawn" };
type Asked<T> = { value: T } | Stop;

const CANCEL: Answer = { action: "cancel" };
const DECLINE: Answer = { action: "decline" };

/** The elicitation handler of the command line on a terminal (see the module doc). */
export function terminalElicitation(options: TerminalElicitOptions): ElicitHandler {
  const { output } = options;
  let turn: Promise<unknown> = Promise.resolve();
  let ended = false;
  const one = async (
    request: ElicitationRequest,
    signal?: AbortSignal,
    completed?: Promise<void>,
  ): Promise<Answer> => {
    if (signal?.aborted) {
      output.detail(
        `server ${quote(request.server)} withdrew a question (elicitation) before it was asked`,
      );
      return CANCEL;
    }
    if (ended) {
      output.warn(
        `server ${quote(request.server)} asked a question (elicitation) and it was ` +
          "declined: the terminal's input ended; run the command again to answer it",
      );
      return DECLINE;
    }
    output.clearStatus();
    const asking = { ...options, ...(signal === undefined ? {} : { signal }) };
    const asked = request.mode === "url"
      ? await askUrl(request, asking, completed)
      : await askForm(request, asking);
    output.answered();
    if ("stop" in asked) {
      if (asked.stop === "end") ended = true;
      output.detail(
        asked.stop === "withdrawn"
          ? `withdrawn: server ${quote(request.server)} no longer waits for this answer`
          : asked.stop === "interrupt"
          ? `cancelled (Ctrl-C): server ${
            quote(request.server)
          } hears that its question was cancelled`
          : asked.stop === "end"
          ? `cancelled: the terminal's input ended; server ${
            quote(request.server)
          } hears that its question was cancelled`
          : `cancelled after ${ELICIT_TRIES} answers that did not fit; server ${
            quote(request.server)
          } hears that its question was cancelled`,
      );
      return CANCEL;
    }
    const answer = asked.value;
    output.detail(
      answer.action === "accept"
        ? `answered server ${quote(request.server)}: accept`
        : `answered server ${quote(request.server)}: ${answer.action}`,
    );
    return answer;
  };
  return (request, context) => {
    const answered = turn.then(() => one(request, context?.signal, context?.completed));
    turn = answered.catch(() => undefined);
    return answered;
  };
}

/**
 * The elicitation handler of the command line without a terminal: each
 * question is declined at once, and stderr says so once per server, with
 * `why` no one could be asked.
 */
export function elicitationWithoutTerminal(output: Output, why: string): ElicitHandler {
  const said = new Set<string>();
  return (request) => {
    if (!said.has(request.server)) {
      said.add(request.server);
      output.warn(
        `server ${quote(request.server)} asked a question (elicitation${
          request.tool === undefined ? "" : ` during ${quote(request.tool)}`
        }: ${quote(request.message, 120)}) and it was declined, as every later question ` +
          `from it will be: ${why}; run the command on a terminal to answer it`,
      );
    }
    return Promise.resolve(DECLINE);
  };
}

/**
 * The handler the command line gives `boot`: asking on the terminal when
 * standard input and standard error are one, else declining, saying why.
 */
export function cliElicitation(output: Output, keys: () => Keys): ElicitHandler {
  const stdin = Deno.stdin.isTerminal();
  if (!stdin || !Deno.stderr.isTerminal()) {
    return elicitationWithoutTerminal(
      output,
      stdin ? "standard error is not a terminal" : "standard input is not a terminal",
    );
  }
  let browser: string | undefined;
  try {
    browser = Deno.env.get("BROWSER") || undefined;
  } catch {
    browser = undefined;
  }
  let made: Keys | undefined;
  // Standard input is read only once a server asks.
  const lazy: Keys = { readLine: (signal) => (made ??= keys()).readLine(signal) };
  return terminalElicitation({
    output,
    keys: lazy,
    ...(browser === undefined ? {} : { browser, open: (url: string) => openUrl(browser, url) }),
  });
}

function openUrl(browser: string, url: string): void {
  new Deno.Command(browser, { args: [url], stdin: "null", stdout: "null", stderr: "null" })
    .spawn().status.catch(() => {});
}

function whoAsks(request: ElicitationRequest, what: string): string {
  const during = request.tool === undefined ? "" : `, during its tool ${quote(request.tool)}`;
  return `Server ${quote(request.server)} ${what} (elicitation${during}):`;
}

/** Where and how one question is asked: the terminal, and the signal that withdraws it. */
type Asking = TerminalElicitOptions & { signal?: AbortSignal };

async function askForm(request: ElicitationRequest, options: Asking): Promise<
  Asked<Answer>
> {
  const { output } = options;
  // The library decoded this request before it came here; a form that does not decode
  // is refused, never half-asked.
  const decoded = decodeElicitRequest({
    message: request.message,
    requestedSchema: request.requestedSchema ?? {},
  });
  if (!decoded.ok || decoded.value.mode !== "form") return { value: CANCEL };
  const { fields } = decoded.value;
  output.detail(output.paint(whoAsks(request, "asks you"), "head", "err"));
  output.detail(`  ${quote(request.message, ELICIT_MESSAGE_CHARS)}`);
  output.detail(
    `  ${fields.length} field${fields.length === 1 ? "" : "s"}; ` +
      "Enter takes the default in [brackets]; Ctrl-C cancels",
  );
  const start = await ask(options, "Answer it? [Y] fill in the form  [n] decline: ", (text) => {
    const word = text.trim().toLowerCase();
    if (word === "" || word === "y" || word === "yes") return { value: true };
    if (word === "n" || word === "no" || word === "decline") return { value: false };
    return { error: `type y to fill in the form or n to decline, not ${quote(text, 40)}` };
  });
  if ("stop" in start) return start;
  if (!start.value) return { value: DECLINE };
  const content: Content = {};
  for (const [index, field] of fields.entries()) {
    describeField(field, index, fields.length, output);
    const answered = await ask(
      options,
      `  ${quote(field.name, 40)}${defaultHint(field)}: `,
      (text) => fieldValue(field, text),
    );
    if ("stop" in answered) return answered;
    if (answered.value !== undefined) content[field.name] = answered.value;
  }
  return { value: { action: "accept", content } };
}

/**
 * Asks whether the person visited the URL; the server saying the visit is
 * complete (`completed`) ends the question as visited, nothing more typed.
 */
async function askUrl(
  request: ElicitationRequest,
  options: Asking,
  completed: Promise<void> | undefined,
): Promise<Asked<Answer>> {
  if (completed === undefined) return await askVisit(request, options);
  const outer = options.signal;
  const asking = new AbortController();
  let complete = false;
  const stop = () => asking.abort();
  outer?.addEventListener("abort", stop, { once: true });
  if (outer?.aborted) stop();
  void completed.then(() => {
    complete = true;
    stop();
  });
  try {
    const asked = await askVisit(request, { ...options, signal: asking.signal });
    if (!complete || !("stop" in asked) || asked.stop !== "withdrawn" || outer?.aborted) {
      return asked;
    }
    options.output.detail(`  server ${quote(request.server)} says the visit is complete`);
    return { value: { action: "accept" } };
  } finally {
    outer?.removeEventListener("abort", stop);
  }
}

async function askVisit(request: ElicitationRequest, options: Asking): Promise<
  Asked<Answer>
> {
  const { output, browser, open } = options;
  const url = request.url ?? "";
  output.detail(output.paint(whoAsks(request, "asks you to visit a URL"), "head", "err"));
  output.detail(`  ${quote(request.message, ELICIT_MESSAGE_CHARS)}`);
  output.detail(`  URL: ${quote(url, ELICIT_URL_CHARS)}`);
  output.detail(
    `  its host: ${quote(URL.canParse(url) ? new URL(url).host : url, ELICIT_TITLE_CHARS)}; ` +
      "visit it only if you expect this server to send you there",
  );
  const canOpen = browser !== undefined && open !== undefined;
  const choices = canOpen
    ? `[o] open it with $BROWSER (${quote(browser, 40)})  [d] done, I visited it  [n] decline: `
    : "[d] done, I visited it  [n] decline: ";
  for (let tries = 0; tries < ELICIT_TRIES; tries++) {
    const said = await ask(options, choices, (text) => {
      const word = text.trim().toLowerCase();
      if (word === "d" || word === "done") return { value: "done" as const };
      if (word === "n" || word === "no" || word === "decline") return { value: "decline" as const };
      if (canOpen && (word === "o" || word === "open")) return { value: "open" as const };
      return { error: `type ${canOpen ? "o, d or n" : "d or n"}, not ${quote(text, 40)}` };
    });
    if ("stop" in said) return said;
    if (said.value === "done") return { value: { action: "accept" } };
    if (said.value === "decline") return { value: DECLINE };
    try {
      open?.(url);
      output.detail(`  opened with ${quote(browser ?? "", 40)}; say d once you are done`);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      output.warn(`cannot open the browser ${quote(browser ?? "", 40)} ($BROWSER): ${why}`, "note");
    }
  }
  return { stop: "tries" };
}

// Asks `question` until `parse` takes the answer, ELICIT_TRIES times at most.
async function ask<T>(
  options: Asking,
  question: string,
  parse: (text: string) => { value: T } | { error: string },
): Promise<Asked<T>> {
  const { output, keys, signal } = options;
  for (let tries = 0; tries < ELICIT_TRIES; tries++) {
    // Reading starts (raw mode on) before the question shows: a key typed at once is the
    // question's, never the terminal's own echo or a SIGINT.
    const reading = keys.readLine(signal);
    output.prompt(output.paint(question, "head", "err"));
    const typed = await reading;
    output.answered();
    if (typed.kind !== "line") return { stop: typed.kind };
    const parsed = parse(typed.text);
    if ("value" in parsed) return parsed;
    output.detail(`    ${parsed.error}; try again (${ELICIT_TRIES - tries - 1} tries left)`);
  }
  return { stop: "tries" };
}

function describeField(field: ElicitField, index: number, count: number, output: Output): void {
  const title = field.title === undefined ? "" : ` ${quote(field.title, ELICIT_TITLE_CHARS)}`;
  output.detail(
    `  Field ${index + 1} of ${count}: ${quote(field.name, 40)}${title}${
      field.required ? ", required" : ", optional"
    }`,
  );
  if (field.description !== undefined) {
    output.detail(`    ${quote(field.description, ELICIT_DESCRIPTION_CHARS)}`);
  }
  output.detail(`    ${expected(field)}`);
  if (field.type === "choice" || field.type === "choices") {
    for (const [at, choice] of field.choices.entries()) {
      const shown = choice.title === undefined
        ? quote(choice.value, ELICIT_TITLE_CHARS)
        : `${quote(choice.title, ELICIT_TITLE_CHARS)} (${quote(choice.value, ELICIT_TITLE_CHARS)})`;
      output.detail(`      ${at + 1}) ${shown}`);
    }
  }
}

function range(low: number | undefined, high: number | undefined, unit = ""): string {
  if (low !== undefined && high !== undefined) return ` from ${low} to ${high}${unit}`;
  if (low !== undefined) return ` of at least ${low}${unit}`;
  if (high !== undefined) return ` of at most ${high}${unit}`;
  return "";
}

// How many choices a field of several takes, after the list's own words.
function howMany(low: number | undefined, high: number | undefined): string {
  if (low !== undefined && high !== undefined) return `, from ${low} to ${high} of them`;
  if (low !== undefined) return `, at least ${low} of them`;
  if (high !== undefined) return `, at most ${high} of them`;
  return "";
}

/** What a field takes, in words. */
function expected(field: ElicitField): string {
  const leave = field.required ? "" : "; Enter alone leaves it out";
  switch (field.type) {
    case "string": {
      const format = field.format === undefined ? "" : `, format ${quote(field.format, 40)}`;
      return `text${range(field.minLength, field.maxLength, " characters")}${format}${
        field.default === undefined ? leave : ""
      }`;
    }
    case "number":
    case "integer":
      return `${field.type === "integer" ? "a whole number" : "a number"}${
        range(field.minimum, field.maximum)
      }${field.default === undefined ? leave : ""}`;
    case "boolean":
      return `yes or no (y or n)${field.default === undefined ? leave : ""}`;
    case "choice":
      return `one of these, by its number or its value${field.default === undefined ? leave : ""}`;
    case "choices":
      return `any of these, by number or value, separated by commas${
        howMany(field.minItems, field.maxItems)
      }${field.default === undefined ? leave : ""}`;
  }
}

function defaultHint(field: ElicitField): string {
  const fallback = field.default;
  if (fallback === undefined) return "";
  if (field.type === "boolean") return fallback ? " [Y/n]" : " [y/N]";
  if (Array.isArray(fallback)) {
    return ` [${fallback.map((item) => quote(item, ELICIT_TITLE_CHARS)).join(", ")}]`;
  }
  return ` [${typeof fallback === "string" ? quote(fallback, ELICIT_TITLE_CHARS) : fallback}]`;
}

type Parsed = { value: Value | undefined } | { error: string };

/** The value typed for `field`, or what is wrong with it. */
export function fieldValue(field: ElicitField, text: string): Parsed {
  const typed = text.trim();
  if (typed === "") {
    if (field.default !== undefined) {
      return { value: Array.isArray(field.default) ? [...field.default] : field.default };
    }
    if (!field.required) return { value: undefined };
    // An optional choice of many may be none; a required one takes an empty list when it may.
    if (field.type === "choices" && (field.minItems ?? 0) === 0) return { value: [] };
    return { error: "it is required: type a value" };
  }
  switch (field.type) {
    case "string":
      return stringValue(field, text);
    case "number":
    case "integer": {
      const number = Number(typed);
      if (!Number.isFinite(number) || !/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(typed)) {
        return { error: `${quote(typed, 40)} is not a number` };
      }
      if (field.type === "integer" && !Number.isSafeInteger(number)) {
        return { error: `${quote(typed, 40)} is not a whole number` };
      }
      if (field.minimum !== undefined && number < field.minimum) {
        return { error: `${number} is below ${field.minimum}` };
      }
      if (field.maximum !== undefined && number > field.maximum) {
        return { error: `${number} is above ${field.maximum}` };
      }
      return { value: number };
    }
    case "boolean": {
      const word = typed.toLowerCase();
      if (["y", "yes", "true"].includes(word)) return { value: true };
      if (["n", "no", "false"].includes(word)) return { value: false };
      return { error: `type y or n, not ${quote(typed, 40)}` };
    }
    case "choice": {
      const picked = choiceOf(field.choices, typed);
      return picked === undefined
        ? { error: `${quote(typed, 40)} is none of the ${field.choices.length} choices` }
        : { value: picked };
    }
    case "choices": {
      const picked: string[] = [];
      for (const word of typed.split(/[\s,]+/).filter((word) => word !== "")) {
        const value = choiceOf(field.choices, word);
        if (value === undefined) {
          return { error: `${quote(word, 40)} is none of the ${field.choices.length} choices` };
        }
        if (!picked.includes(value)) picked.push(value);
      }
      if (field.minItems !== undefined && picked.length < field.minItems) {
        return { error: `pick at least ${field.minItems}` };
      }
      if (field.maxItems !== undefined && picked.length > field.maxItems) {
        return { error: `pick at most ${field.maxItems}` };
      }
      return { value: picked };
    }
  }
}

function choiceOf(choices: readonly ElicitChoice[], typed: string): string | undefined {
  if (/^\d+$/.test(typed)) {
    const choice = choices[Number(typed) - 1];
    if (choice !== undefined) return choice.value;
  }
  return choices.find((choice) => choice.value === typed)?.value;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function stringValue(field: ElicitField & { type: "string" }, text: string): Parsed {
  const length = [...text].length;
  if (field.minLength !== undefined && length < field.minLength) {
    return { error: `it has ${length} characters, fewer than ${field.minLength}` };
  }
  if (field.maxLength !== undefined && length > field.maxLength) {
    return { error: `it has ${length} characters, more than ${field.maxLength}` };
  }
  const problem = formatProblem(field.format, text);
  return problem === undefined ? { value: text } : { error: problem };
}

// The formats the specification names for a form's text: email, uri, date, date-time.
function formatProblem(format: string | undefined, text: string): string | undefined {
  switch (format) {
    case "email":
      return EMAIL.test(text) ? undefined : `${quote(text, 40)} is not an email address`;
    case "uri":
      return URL.canParse(text) ? undefined : `${quote(text, 40)} is not a URI (such as https://…)`;
    case "date": {
      const time = DATE.test(text) ? Date.parse(`${text}T00:00:00Z`) : NaN;
      const valid = !Number.isNaN(time) && new Date(time).toISOString().startsWith(text);
      return valid ? undefined : `${quote(text, 40)} is not a date (YYYY-MM-DD)`;
    }
    case "date-time":
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) &&
          !Number.isNaN(Date.parse(text))
        ? undefined
        : `${quote(text, 40)} is not a date and time (such as 2026-12-01T09:30:00Z)`;
    default:
      return undefined;
  }
}
