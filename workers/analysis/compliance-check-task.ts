// The render API's `compliance-check` (POST /api/v1/compliance-check,
// enterprise): a PDF checked against PDF/A (ISO 19005) the way veraPDF does,
// rule by rule (pdfa/validate.ts), with each failure's rule id as veraPDF
// names it, how often and on which pages it fails.
import * as v from 'valibot';
import { openObjects } from '../seams/pdf-objects.js';
import { OpenFailure } from '../seams/pdf-structure.js';
import { jsonTask, type JsonResult } from '../task/json-task.js';
import { openFailure } from '../task/open-failure.js';
import { decodePdfField } from '../task/pdf-field.js';
import { STANDARDS, validatePdfa } from './pdfa/validate.js';
import { base64Member } from '../task/decoded-member.js';

const ComplianceCheckRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
  standard: v.optional(v.picklist(STANDARDS, `must be one of ${STANDARDS.join(', ')}`)),
});

type ComplianceCheckRequest = v.InferOutput<typeof ComplianceCheckRequest>;

export const complianceCheck = jsonTask(ComplianceCheckRequest, async (request: ComplianceCheckRequest): Promise<JsonResult> => {
  const bytes = decodePdfField(request.pdf, 'pdf', 2 ** 31);
  let pdf;
  try {
    pdf = await openObjects(bytes, request.password);
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw openFailure(error);
  }
  const report = validatePdfa(bytes, pdf, request.standard);
  return { data: report };
}, { binaryFields: ['pdf'] });
