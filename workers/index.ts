// The worker module Piscina loads: one named export per task (TaskName in
// protocol.ts). Workers never touch HTTP, uWS, Redis or anything in src/.
export { render, validate } from './render/task.js';
export { sessionOperation as 'session-operation' } from './render/session-operation.js';
export { warm } from './warm.js';
export { checkDeployment as 'check-deployment' } from './deployment-check.js';
export { linearize } from './linearize/task.js';
export { imageCompress as 'image-compress' } from './image/compress.js';
export { fontSubset as 'font-subset' } from './font/subset-task.js';
export { fontRegister as 'font-register' } from './font/register-task.js';
export { merge } from './docops/merge.js';
export { optimize } from './docops/optimize.js';
export { split } from './docops/split.js';
export { sign } from './sign/sign.js';
export { fillForm as 'fill-form' } from './docops/fill-form.js';
export { redact } from './docops/redact.js';
export { extractText as 'extract-text' } from './read/extract-text-task.js';
export { extractTextCapability as 'capability-extract-text' } from './read/text-capability-task.js';
export { compare } from './compare/task.js';
export { compareCapability as 'capability-compare' } from './compare/capability-task.js';
export { forensicAnalyze as 'forensic-analyze' } from './analysis/forensic/forensic-analyze-task.js';
export { aiCertify as 'ai-certify' } from './analysis/certify/ai-certify-task.js';
export { parse } from './read/parse-task.js';
export { ragChunk as 'rag-chunk' } from './rag/chunk-task.js';
export { ragEmbed as 'rag-embed' } from './rag/embed-task.js';
export { complianceCheck as 'compliance-check' } from './analysis/compliance-check-task.js';
export { checkAccessibility as 'check-accessibility' } from './analysis/check-accessibility-task.js';
export { ragIndex as 'rag-index' } from './rag/index-task.js';
export { ragSearch as 'rag-search' } from './rag/search-task.js';
