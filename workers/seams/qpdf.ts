// qpdf 12.2 compiled to WebAssembly (@neslinesli93/qpdf-wasm), behind one
// seam: the rest of the code runs qpdf as it would run the CLI, with files
// in and out and its exit code, stdout and stderr captured, never printed.
//
// Instances are recycled. The package's callMain() allocates argv on the
// WebAssembly stack (64 KiB) and never frees it, so every call leaks its
// arguments: one instance trapped ("table index is out of bounds") after
// 773 calls of `--show-npages /in.pdf` and after 351 calls when the path was
// 100 bytes longer (measured here). The same stack bounds qpdf's own
// recursion: a fresh instance wrote an array nested 159 deep and trapped at
// 160 ("memory access out of bounds"), where the native CLI goes to 500.
// On a fresh instance overflow traps rather than corrupting output: the
// stack sits below the data, and outputs up to the limit were
// byte-identical to the CLI's. On an instance that had served a run it did
// not always: a catalog nested 300 deep under `qpdf --decrypt` sometimes
// left the run looping until the task's timeout. So input nested past
// MAX_NESTING (100) never reaches qpdf (untrusted/pdf-nesting.ts): it is a
// QpdfTrap at once, which every caller answers as a 422.
// So an instance serves at most CALLS_PER_INSTANCE calls (a few KiB of
// leaked stack), is dropped after any failure or trap (a failed run may
// leave C++ state behind), and after a job that grew its memory past
// RECYCLE_MEMORY_BYTES (WebAssembly memory never shrinks). A new instance
// costs ~9 ms (reading and compiling the 1.3 MB module); one job on a warm
// instance ~4 ms for a 50-page PDF, so recycling every 32 calls adds ~0.3 ms.
// That was wall time on the calling thread: counting every thread, a new
// instance cost 31 ms of CPU (V8 compiled the module afresh, and its
// background threads optimised qpdf's hot functions again), ~0.9 ms of a
// 10-page split's 7.7 ms once spread over 32 calls. So the module is
// compiled once per thread (compiledModule below) and each instance only
// instantiates it: the optimised code is shared, the memory is not.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MAX_NESTING, nestsDeeperThan, objectStreamsNestDeeperThan } from '../untrusted/pdf-nesting.js';

const require = createRequire(import.meta.url);

/** The parts of the Emscripten module this seam uses (the package's own typings omit most of them). */
interface EmscriptenModule {
  callMain(args: string[]): number;
  readonly FS: {
    init(stdin: () => number | null, stdout: (byte: number | null) => void, stderr: (byte: number | null) => void): void;
    writeFile(path: string, data: Uint8Array): void;
    readFile(path: string): Uint8Array;
    unlink(path: string): void;
  };
  readonly HEAPU8: Uint8Array;
}

interface ModuleOptions {
  locateFile: () => string;
  noInitialRun: boolean;
  preRun: Array<(module: EmscriptenModule) => void>;
}

const createModule = require('@neslinesli93/qpdf-wasm') as (options: ModuleOptions) => Promise<EmscriptenModule>;
const WASM_PATH = require.resolve('@neslinesli93/qpdf-wasm/dist/qpdf.wasm');

export const CALLS_PER_INSTANCE = 32;
export const RECYCLE_MEMORY_BYTES = 128 * 1024 * 1024;
/** Captured per stream; a badly damaged file can make qpdf print a warning per object. */
const MAX_OUTPUT_BYTES = 64 * 1024;

export interface QpdfRun {
  /** 0 success, 2 errors, 3 success with warnings (qpdf's CLI conventions). */
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Files the caller asked for that exist after the run. */
  readonly outputs: ReadonlyMap<string, Uint8Array>;
}

export interface QpdfCall {
  /** Arguments after the program name, as for the CLI. */
  readonly args: readonly string[];
  /** Files written into the instance's memory file system before the run. */
  readonly inputs?: ReadonlyMap<string, Uint8Array>;
  /** Files read back after the run (when they exist). */
  readonly outputs?: readonly string[];
}

/** qpdf itself failed (a WebAssembly trap or abort), on a fresh instance: the input is beyond this build. */
export class QpdfTrap extends Error {
  constructor(readonly reason: string) {
    super(`qpdf stopped: ${reason}`);
    this.name = 'QpdfTrap';
  }
}

class Capture {
  private readonly chunks: number[] = [];
  readonly push = (byte: number | null): void => {
    if (byte !== null && this.chunks.length < MAX_OUTPUT_BYTES) this.chunks.push(byte);
  };
  take(): string {
    const text = Buffer.from(this.chunks).toString('utf8');
    this.chunks.length = 0;
    return text;
  }
}

interface Instance {
  readonly module: EmscriptenModule;
  readonly stdout: Capture;
  readonly stderr: Capture;
  calls: number;
  usable: boolean;
}

/** The parts of the WebAssembly namespace used here (it is not among this project's TypeScript libs). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  instantiate(source: unknown, imports?: object): Promise<unknown>;
}

const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** qpdf.wasm's bytes and, once compiled, its module: one per thread. */
let wasmBytes: Buffer | undefined;
let compiledModule: object | undefined;

/**
 * This build of the glue has no `instantiateWasm` hook (its options are
 * listed in the package's qpdf.d.ts): it reads qpdf.wasm and calls
 * WebAssembly.instantiate(bytes, imports) itself. So while an instance is
 * made, instantiate is wrapped: given qpdf.wasm's very bytes (compared, not
 * guessed from the size), it instantiates the module compiled the first
 * time, which answers as instantiate(bytes) does, `{ module, instance }`.
 * Any other call passes through unchanged.
 */
async function withCompiledModule<T>(make: () => Promise<T>): Promise<T> {
  wasmBytes ??= readFileSync(WASM_PATH);
  const original = wasm.instantiate;
  wasm.instantiate = async (source: unknown, imports?: object): Promise<unknown> => {
    if (!(source instanceof Uint8Array) || wasmBytes === undefined || !wasmBytes.equals(source)) return original.call(wasm, source, imports);
    if (compiledModule === undefined) {
      compiledModule = new wasm.Module(source);
      compiled++;
    }
    const instance = await original.call(wasm, compiledModule, imports);
    return { module: compiledModule, instance };
  };
  try {
    return await make();
  } finally {
    wasm.instantiate = original;
  }
}

async function newInstance(): Promise<Instance> {
  const stdout = new Capture();
  const stderr = new Capture();
  const module = await withCompiledModule(() =>
    createModule({
      locateFile: () => WASM_PATH,
      noInitialRun: true,
      // Our own devices for the standard streams, so that nothing qpdf prints
      // reaches the process's console (Emscripten's default tty would).
      preRun: [(m) => m.FS.init(() => null, stdout.push, stderr.push)],
    }),
  );
  created++;
  return { module, stdout, stderr, calls: 0, usable: true };
}

let current: Instance | undefined;
let created = 0;
let compiled = 0;

/** Times this thread compiled qpdf.wasm (once: tests check that instances share the module). */
export function modulesCompiled(): number {
  return compiled;
}

/** Instances created by this thread so far (tests check the recycling). */
export function instancesCreated(): number {
  return created;
}

async function instance(): Promise<Instance> {
  if (current === undefined || !current.usable || current.calls >= CALLS_PER_INSTANCE) current = await newInstance();
  return current;
}

/** Inputs found shallow enough: a task's qpdf runs on one file (count, decrypt, write) scan it once (~5 ms a MB). */
const scanned = new WeakSet<Uint8Array>();

/**
 * Runs qpdf once. A trap on an instance that had served earlier calls is
 * retried once on a fresh instance (the leak or earlier state may be the
 * cause); a trap on a fresh instance is the input's and throws QpdfTrap.
 */
export async function runQpdf(call: QpdfCall): Promise<QpdfRun> {
  for (const input of call.inputs?.values() ?? []) {
    if (scanned.has(input)) continue;
    // Past it, the overflow may wreck the instance rather than trap (untrusted/pdf-nesting.ts).
    if (nestsDeeperThan(input) || (await objectStreamsNestDeeperThan(input))) throw new QpdfTrap(`an object nested more than ${MAX_NESTING} levels deep`);
    scanned.add(input);
  }
  const used = await instance();
  try {
    return runOn(used, call);
  } catch (error) {
    if (!isTrap(error)) throw error;
    if (used.calls <= 1) throw new QpdfTrap(trapReason(error));
    try {
      return runOn(await instance(), call);
    } catch (again) {
      if (isTrap(again)) throw new QpdfTrap(trapReason(again));
      throw again;
    }
  }
}

/**
 * A WebAssembly trap (out-of-bounds access, stack overflow) or the glue's
 * abort(), which throws a WebAssembly.RuntimeError too. Matched by name:
 * the WebAssembly namespace is not among this project's TypeScript libs.
 * Or the number Infinity: the glue throws it for a C longjmp (its setjmp
 * emulation), and on an instance that had served a call before, the stack
 * overflow of a file nested 300 deep escaped that way instead of trapping
 * (measured: `qpdf --decrypt` of such an AES-256 file after one merge), so
 * it reached the task as a thrown number, a 500.
 */
function isTrap(error: unknown): boolean {
  return (error instanceof Error && error.name === 'RuntimeError') || error === Infinity;
}

function trapReason(error: unknown): string {
  return error instanceof Error ? error.message : 'a longjmp out of an overflowed stack';
}

function runOn(target: Instance, call: QpdfCall): QpdfRun {
  const { module } = target;
  target.calls++;
  const paths = [...(call.inputs?.keys() ?? []), ...(call.outputs ?? [])];
  // The glue's exit handler sets process.exitCode to qpdf's exit code (2 for
  // a damaged file), which would become the exit code of this thread, or of a
  // test process calling the task directly.
  const exitCode = process.exitCode;
  let ok = false;
  try {
    for (const [path, data] of call.inputs ?? []) module.FS.writeFile(path, data);
    // callMain prepends the program name to the array it is given: pass a copy.
    const code = module.callMain([...call.args]);
    const outputs = new Map<string, Uint8Array>();
    for (const path of call.outputs ?? []) {
      const data = readIfExists(module, path);
      if (data !== undefined) outputs.set(path, data);
    }
    ok = code === 0;
    return { exitCode: code, stdout: target.stdout.take(), stderr: target.stderr.take(), outputs };
  } finally {
    process.exitCode = exitCode;
    if (ok) {
      for (const path of paths) unlinkQuietly(module, path);
      if (module.HEAPU8.byteLength > RECYCLE_MEMORY_BYTES) target.usable = false;
    } else {
      // A failed or trapped run may leave qpdf's C++ state half-done: never reuse it.
      target.usable = false;
      target.stdout.take();
      target.stderr.take();
    }
  }
}

function readIfExists(module: EmscriptenModule, path: string): Uint8Array | undefined {
  try {
    return module.FS.readFile(path);
  } catch {
    return undefined;
  }
}

function unlinkQuietly(module: EmscriptenModule, path: string): void {
  try {
    module.FS.unlink(path);
  } catch {
    // Not created (an output qpdf did not write).
  }
}
