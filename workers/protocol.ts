// The thread boundary, written down as types (piscina's src/types.ts is the
// model). src/ imports this file with `import type` only.
//
// A task is (input) => Promise<Outcome>. Expected failures (invalid payload,
// bad font, encrypted PDF) are *returned* as { ok: false }; anything thrown
// is a bug and becomes 500 `internal`. Reason: on Node 20 a custom Error
// crossing postMessage arrives as a plain Error with its `code` gone.

/**
 * Every task, by the name it is exported under in workers/index.ts: the
 * options the main thread sends it and the value it answers with. `dispatch`
 * and `WorkerPool.run` are typed by this map, so a wrong or missing option is
 * a compile error at the call site; test/unit/task-map.test.ts checks that
 * workers/index.ts exports exactly these tasks with these types.
 */
export interface TaskMap {
  render: { options: RenderOptions; value: TaskValue };
  /** Validates a RenderRequest and hands its body back (POST /jobs); or several, one verdict each (ValidateOptions). */
  validate: { options: ValidateOptions; value: TaskValue };
  'session-operation': { options: SessionOperationOptions; value: TaskValue };
  /** Start-up only (WorkerPool.warm): loads every task module on every thread. */
  warm: { options: WarmOptions; value: TaskValue };
  /** Start-up only (WorkerPool.checkDeployment): the configured key files read once; a broken one stops start-up. */
  'check-deployment': { options: DeploymentCheckOptions; value: TaskValue };
  linearize: { options: NoOptions; value: AccelValue };
  'image-compress': { options: ImageCompressOptions; value: AccelValue };
  'font-subset': { options: FontSubsetOptions; value: AccelValue };
  /** PUT /api/v1/fonts/{family}: a font file checked as set_font checks font data; the sfnt bytes to store come back. */
  'font-register': { options: FontRegisterOptions; value: RegisteredFontValue };
  merge: { options: DocOpsOptions; value: TaskValue };
  split: { options: DocOpsOptions; value: TaskValue };
  /** POST /api/v1/sign: a PAdES B-B signature as an incremental update. */
  sign: { options: SignOptions; value: TaskValue };
  /** POST /api/v1/fill-form: values into AcroForm fields, with appearances; optionally flattened. */
  'fill-form': { options: DocOpsOptions; value: TaskValue };
  /** POST /api/v1/optimize: the PDF rewritten smaller, or the input unchanged; its headers say which. */
  optimize: { options: DocOpsOptions; value: TaskValue };
  /** POST /api/v1/redact: true removal of what lies inside areas (given, or found from text and patterns). */
  redact: { options: DocOpsOptions; value: TaskValue };
  'extract-text': { options: ReadOptions; value: AccelValue };
  /** The render API's extract-text (POST /api/v1/extract-text): plain text or blocks per page. */
  'capability-extract-text': { options: ReadOptions; value: AccelValue };
  compare: { options: ReadOptions; value: AccelValue };
  /** The render API's compare (POST /api/v1/compare): the same comparison, the render API's request. */
  'capability-compare': { options: ReadOptions; value: AccelValue };
  /** POST /api/v1/forensic-analyze: revisions, signatures, active content, hidden text, findings. */
  'forensic-analyze': { options: ReadOptions; value: AccelValue };
  /** POST /api/v1/ai-certify: checks for language-model ingestion, signed as a JWS. */
  'ai-certify': { options: CertifyOptions; value: AccelValue };
  parse: { options: ReadOptions; value: AccelValue };
  /** POST /v1/rag/chunk: a PDF in chunks for retrieval. */
  'rag-chunk': { options: ReadOptions; value: AccelValue };
  /** POST /v1/rag/embed: vectors of the built-in model, or (REMOTE_EMBED_MEDIA_TYPE) the validated request for a remote one. */
  'rag-embed': { options: RagEmbedOptions; value: AccelValue };
  /** POST /api/v1/compliance-check: a PDF checked against PDF/A (ISO 19005) rule by rule. */
  'compliance-check': { options: NoOptions; value: AccelValue };
  /** POST /api/v1/check-accessibility: a PDF checked against PDF/UA-1 (ISO 14289-1) rule by rule. */
  'check-accessibility': { options: NoOptions; value: AccelValue };
  /** POST /v1/rag/index: a PDF chunked and embedded (IndexPlan, INDEX_PLAN_MEDIA_TYPE) for the main thread to write to a vector store. */
  'rag-index': { options: RagIndexOptions; value: AccelValue };
  /** POST /v1/rag/search: the request validated (SearchPlan, SEARCH_PLAN_MEDIA_TYPE) for the main thread to look up. */
  'rag-search': { options: NoOptions; value: AccelValue };
}

/** The named exports of workers/index.ts. */
export type TaskName = keyof TaskMap;
export type OptionsOf<Name extends TaskName> = TaskMap[Name]['options'];
export type ValueOf<Name extends TaskName> = TaskMap[Name]['value'];
/** What the task named `Name` must be: workers/index.ts exports one of these per entry of TaskMap. */
export type TaskOf<Name extends TaskName> = (input: TaskInput<OptionsOf<Name>>) => Promise<Outcome<ValueOf<Name>>>;

/** Options of a task that needs none. */
export type NoOptions = Readonly<Record<string, never>>;

export interface TaskInput<Options = Record<string, unknown>> {
  /** The request body, in its own ArrayBuffer, transferred (not copied) to the worker. */
  readonly body: ArrayBuffer;
  /** Bytes of `body` that hold data: the buffer may be larger than the body. */
  readonly length: number;
  /** Small, already-validated options from the main thread (query, headers). */
  readonly options: Options;
}

export interface Timings {
  /** Time spent inside the task, measured by the worker. */
  readonly taskMs: number;
}

/** What a successful task hands back: bytes ready to be written as the response body. */
export interface TaskValue {
  /** Transferred back to the main thread. */
  readonly body: ArrayBuffer;
  /**
   * `application/pdf` and the like are written as they are; `application/json`
   * is the serialised `data` member, which the main thread wraps in the API's
   * envelope without parsing it again.
   */
  readonly mediaType: string;
  /** Accelerator tasks: what the envelope's `meta` reports about the worker's side. */
  readonly meta?: TaskMeta;
  /**
   * Response headers the task's result brings along (a capability operation's
   * `X-Redactions: 3`): names and values the route writes as they are.
   */
  readonly headers?: readonly (readonly [string, string])[];
}

/** What an accelerator task (workers/lib/json-task.ts) hands back: the envelope's `data` and its `meta`. */
export interface AccelValue extends TaskValue {
  readonly meta: TaskMeta;
}

export interface TaskMeta {
  /** The worker thread's id (node:worker_threads threadId). */
  readonly workerId: number;
  /** Served from the worker's cache of identical requests. */
  readonly cached: boolean;
}

/** Kinds of expected failure; the main thread maps each to a problem slug. */
export type FailureCode =
  /** The body is not well-formed (e.g. not JSON): 400. */
  | 'malformed'
  /** Well-formed but invalid, or the engine cannot process it: 422 with errors[]. */
  | 'invalid'
  | AccelFailureCode;

/**
 * The accelerator's failures about the content of a payload (a font that is
 * not a font, an image too large to decode). Each is the problem slug it
 * becomes, with that slug's status (src/http/problem.ts).
 */
export type AccelFailureCode =
  | 'invalid-font-data'
  | 'font-too-large'
  | 'invalid-image-data'
  | 'image-too-large'
  | 'invalid-pdf-data'
  /** The PDF's streams and images decode to more than PLATEN_MAX_DECODED_BYTES (untrusted/decoded-bytes.ts). */
  | 'pdf-limits-exceeded'
  | 'pdf-password-required'
  | 'signing-identity-missing'
  | 'document-certified'
  | 'xfa-form-unsupported'
  | 'document-signed';

export interface FieldError {
  /** Path of the offending field, e.g. `operations[3].width`. */
  readonly field: string;
  /** Machine-readable code, e.g. INVALID_ENUM, REQUIRED, INVALID_TYPE, OUT_OF_RANGE. */
  readonly code: string;
  readonly message: string;
}

export type Outcome<Value extends TaskValue = TaskValue> =
  | { readonly ok: true; readonly value: Value; readonly timings: Timings }
  | {
      readonly ok: false;
      readonly code: FailureCode;
      readonly detail: string;
      readonly errors?: readonly FieldError[];
      /**
       * What a library said (libvips, pdf-lib, fontkit, qpdf), for the
       * server's log: never in the response, whose detail says what is wrong
       * with the input in our own words (issue 9).
       */
      readonly cause?: string;
      readonly timings: Timings;
    };

/**
 * What every worker thread is started with (Piscina's workerData, set by
 * src/server.ts from the configuration), besides what tests add.
 */
export interface WorkerSettings {
  /** PLATEN_MAX_DECODED_BYTES: what one task's PDF streams and images may decode to (untrusted/decoded-bytes.ts). */
  readonly maxDecodedBytes: number;
}

/**
 * Options of the `validate` task. With `lengths`, the body holds that many
 * requests back to back (job submissions that waited for a thread
 * together), and the answer's body is the JSON of one ValidationVerdict
 * for each, in order.
 */
export interface ValidateOptions {
  readonly lengths?: readonly number[];
}

/** One request's verdict in a batch (ValidateOptions): null when it is valid, else what the validate task would have answered. */
export type ValidationVerdict = null | { readonly code: FailureCode; readonly detail: string; readonly errors?: readonly FieldError[]; readonly cause?: string };

/** Options of the `render` task, set by the server's configuration. */
export interface RenderOptions {
  /** Pages one document may have; past it the task fails with `invalid`. */
  readonly maxPages: number;
  /**
   * For jobs: an Int32 in shared memory that the task sets to its progress
   * (0-100) as operations are laid out, read by the main thread when a
   * client polls. Shared memory, because a running task sends no messages.
   */
  readonly progress?: SharedArrayBuffer;
  /**
   * For a job started by its own submission (src/jobs/runner.ts, one task
   * instead of a validation and then a render): `progress` holds a second
   * Int32, the SubmissionState, which the task sets to valid (and
   * notifies) once the request has passed every check the `validate` task
   * makes, so the submission can be answered 201 while the render goes on.
   * A task that ends without setting it found the request invalid (its
   * outcome is the submission's 422) or found it withdrawn (and rendered
   * nothing).
   */
  readonly signalValid?: boolean;
  /**
   * The client's registered fonts (PUT /api/v1/fonts/{family}): family →
   * path of the checked sfnt file, named by its SHA-256. set_font with a
   * family and no data reads it there; workers keep the bytes (and the
   * parsed face) by that hash, so a font is read and parsed once per worker.
   */
  readonly fonts?: Readonly<Record<string, string>>;
}

/**
 * The second Int32 of a submitted job's `progress` (RenderOptions.signalValid),
 * set once, by compare-and-exchange from 0 (undecided): to 1 (valid) by the
 * task when the request passed validate's checks, or to 2 (withdrawn) by the
 * main thread when the submitter left before that. The first to set it
 * decides: a withdrawn task stops after validating, without rendering, so a
 * client that leaves costs no thread (stopping a running task terminates
 * its thread). A literal type, as src/ imports this module's types only.
 */
export type SubmissionState = 0 | 1 | 2;

/** Options of the `session-operation` task: which operation a session route adds, on which page setup. */
export interface SessionOperationOptions {
  /** The operation type the route stands for (`add_text` for POST .../text, ...). */
  readonly type: string;
  readonly pageSize: string;
  readonly orientation: string;
  /** The session renders a PDF/UA file (output.tagged true, or pdf_a level a): the operation must carry what one requires (an image's alt). */
  readonly pdfUa?: boolean;
}

/** Options of the `image-compress` task, set by the server's configuration. */
export interface ImageCompressOptions {
  /** Decoded bytes of `image_data`; past it: image-too-large (checked on the base64 length, before decoding). */
  readonly maxImageBytes: number;
  /** Width x height (x frames, when every frame is kept) libvips may decode; past it: image-too-large. */
  readonly maxImagePixels: number;
  /** The pool's processing timeout (PLATEN_TIMEOUT_MS), which libvips is told too (see workers/image/compress.ts). */
  readonly timeoutMs: number;
}

/** Options of the `font-subset` task, from the server's configuration. */
export interface FontSubsetOptions {
  /** Font bytes accepted (PLATEN_MAX_FONT_BYTES): base64 and WOFF/WOFF2 unpacking are checked against it. */
  readonly maxFontBytes: number;
}

/** Options of the `font-register` task, from the server's configuration. */
export interface FontRegisterOptions {
  /** Font bytes accepted (PLATEN_MAX_FONT_BYTES), after unpacking WOFF/WOFF2. */
  readonly maxFontBytes: number;
  /** The family it is registered as (the path's, decoded); checked by the task against set_font's rules. */
  readonly family: string;
  /** The face kept when the font is a collection (`?face_index=`; 0, the first, by default). */
  readonly faceIndex: number;
}

/** What `font-register` answers: `body` is the sfnt font to store (WOFF/WOFF2 unpacked, one face of a collection). */
export interface RegisteredFontValue extends TaskValue {
  readonly font: {
    /** SHA-256 (hex) of `body`. */
    readonly sha256: string;
    readonly glyphs: number;
    /** The font's own full name. */
    readonly name: string;
    /** What was sent: `sfnt` (TrueType/OpenType), `woff` or `woff2`. */
    readonly format: 'sfnt' | 'woff' | 'woff2';
  };
}

/** Options of the `warm` task (workers/warm.ts), sent by WorkerPool.warm. */
export interface WarmOptions {
  /** Int32 slot 0 counts arrivals. */
  readonly barrier: SharedArrayBuffer;
  readonly threads: number;
  readonly timeoutMs: number;
}

/** Options of `check-deployment`: the key files of the configuration (SignOptions and CertifyOptions name the same). */
export interface DeploymentCheckOptions {
  readonly p12File?: string;
  readonly p12Password?: string;
  readonly attestationKeyFile?: string;
  readonly dataDir: string;
}

/** Options of the PDF-reading tasks (parse, extract-text, ...), from the server's configuration. */
export interface ReadOptions {
  /** Pages one request may read (PLATEN_MAX_PAGES); more selected: 422 TOO_LARGE. */
  readonly maxPages: number;
  /** Drawing operators plus text runs one request may read (PLATEN_READ_WORK_BUDGET); past it: 422 TOO_LARGE. */
  readonly workBudget: number;
}

/** Options of the `ai-certify` task: the reading limits, and where the attestation key comes from. */
export interface CertifyOptions extends ReadOptions {
  /** PLATEN_ATTESTATION_KEY_FILE: an Ed25519 private key (PKCS#8 PEM) the worker reads once per thread. */
  readonly attestationKeyFile?: string;
  /** PLATEN_DATA_DIR: without a key file, the key generated once is kept here (attestation-key.pem, 0600). */
  readonly dataDir: string;
}

/** Options of the `rag-embed` task, from the server's configuration. */
export interface RagEmbedOptions {
  /** Inputs one request may carry (PLATEN_EMBED_MAX_INPUTS). */
  readonly maxInputs: number;
  /** Models of the deployment's OpenAI-compatible provider (PLATEN_EMBEDDINGS_MODELS); empty without one. */
  readonly remoteModels: readonly string[];
}

/** The media type of a `rag-embed` answer that the main thread must carry out with the remote provider. */
export type RemoteEmbedMediaType = 'application/vnd.platen.remote-embed+json';

/** Such an answer's body: the request, validated and with its token counts. */
export interface RemoteEmbedPlan {
  readonly model: string;
  readonly dimensions: number | null;
  readonly normalize: boolean;
  readonly inputs: readonly { readonly id: string; readonly text: string; readonly token_count: number }[];
}

/** Options of the `rag-index` task: the reader's limits and the remote models, as rag-chunk and rag-embed take them. */
export interface RagIndexOptions extends ReadOptions {
  readonly remoteModels: readonly string[];
}

/** A vector store as the index and search requests name it, validated by the worker. */
export interface VectorStoreRef {
  readonly backend: 'embedded' | 'pgvector';
  readonly collection: string;
  /** pgvector only: postgres://user@host:port/database (the password is api_key). */
  readonly endpoint: string | null;
  readonly api_key: string | null;
}

/** The media type of a `rag-index` answer: an IndexPlan. */
export type IndexPlanMediaType = 'application/vnd.platen.index-plan+json';

/** The accelerator contract's chunk, as rag-chunk answers it and rag-index stores it. */
export interface PlanChunk {
  readonly chunk_id: string;
  readonly text: string;
  readonly page: number;
  readonly section: string;
  readonly token_count: number;
  readonly metadata: { readonly headings_path: readonly string[]; readonly is_table: boolean; readonly language: string | null };
}

/** A document chunked and (for the built-in model) embedded, to be written to the store named in it. */
export interface IndexPlan {
  readonly document_id: string;
  readonly page_count: number;
  readonly vector_store: VectorStoreRef;
  readonly upsert: boolean;
  readonly namespace: string;
  readonly model: string;
  /** null for a remote model: the provider decides. */
  readonly dimensions: number | null;
  readonly chunks: readonly PlanChunk[];
  /**
   * The built-in model's vectors, chunk by chunk, as little-endian float32s
   * in base64: decoding that is native and linear, where JSON arrays of
   * numbers would be parsed number by number on the main thread.
   */
  readonly vectors: string | null;
  /** A remote model: the texts the main thread has the provider embed. */
  readonly remote: RemoteEmbedPlan | null;
}

/** The media type of a `rag-search` answer: a SearchPlan. */
export type SearchPlanMediaType = 'application/vnd.platen.search-plan+json';

/** The columns a search filter may name, by the path a request names them with. */
export type FilterColumn = 'document_id' | 'chunk_id' | 'page' | 'section' | 'is_table' | 'language' | 'namespace' | 'token_count' | 'headings_path';

/**
 * A value a column must have; for `headings_path` (an array), a string is an
 * element it must contain and an array a prefix it must start with.
 */
export interface FilterTerm {
  readonly column: FilterColumn;
  readonly value: string | number | boolean | null | readonly string[];
}

export interface SearchPlan {
  readonly query: string;
  readonly vector_store: VectorStoreRef;
  readonly top_k: number;
  readonly min_score: number | null;
  readonly namespace: string;
  readonly filter: readonly FilterTerm[];
}

export type Task<Options = Record<string, unknown>, Value extends TaskValue = TaskValue> = (input: TaskInput<Options>) => Promise<Outcome<Value>>;

/** Options of the document operations (merge, split), from the server's configuration. */
export interface DocOpsOptions {
  /** Pages a result may have (PLATEN_MAX_PAGES); a larger selection is 422. */
  readonly maxPages: number;
}

/** Options of the `sign` task: the deployment's own signing identity, if configured. */
export interface SignOptions {
  /** PLATEN_SIGNING_P12_FILE: a PKCS#12 file the worker reads (once per thread). */
  readonly p12File?: string;
  /** PLATEN_SIGNING_P12_PASSWORD. */
  readonly p12Password?: string;
}
