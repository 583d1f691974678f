// The package's entry point (package.json "main"/"exports"): the typed
// client for the accelerator API, in remote mode (a base URL, proxies from
// the environment) and sidecar mode (the server's Unix socket).
export { PlatenClient, type CallOptions, type PlatenClientOptions } from './client.js';
export {
  PlatenCircuitOpenError,
  PlatenError,
  PlatenHttpError,
  PlatenNetworkError,
  PlatenProblemError,
  PlatenResponseError,
  PlatenTimeoutError,
  type PlatenErrorKind,
} from './errors.js';
export type { BreakerOptions, BreakerState } from './breaker.js';
export type { RetryOptions } from './retry.js';
export type {
  AccelResponse,
  FontList,
  FontMediaType,
  RegisteredFont,
  RenderResponse,
  Chunk,
  ChunkRequest,
  ChunkResult,
  ClusterNode,
  ClusterStatus,
  CompareChange,
  CompareChangeType,
  CompareRequest,
  CompareResult,
  CompressImageRequest,
  CompressImageResult,
  EmbedRequest,
  EmbedResult,
  ExtractTextRequest,
  ExtractTextResult,
  HealthRecord,
  IndexRequest,
  IndexResult,
  LinearizeRequest,
  LinearizeResult,
  ParsedPage,
  ParseRequest,
  ParseResult,
  ProblemDocument,
  SearchHit,
  SearchRequest,
  SearchResult,
  SubsetFontRequest,
  SubsetFontResult,
  TextSpan,
  VectorStoreReference,
} from './types.js';
