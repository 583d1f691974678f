// The render API's `check-accessibility` (POST /api/v1/check-accessibility,
// pro): a PDF checked against PDF/UA-1 (ISO 14289-1) the way veraPDF does,
// rule by rule (ua/check.ts), each failure with veraPDF's rule id, the
// Matterhorn Protocol checkpoint where one maps, how often and on which
// pages it fails.
import * as v from 'valibot';
import { OpenFailure } from '../seams/pdf-structure.js';
import { jsonTask, type JsonResult } from '../task/json-task.js';
import { openFailure } from '../task/open-failure.js';
import { decodePdfField } from '../task/pdf-field.js';
import { checkAccessibility as check, UA_STANDARD } from './ua/check.js';
import { base64Member } from '../task/decoded-member.js';

const CheckAccessibilityRequest = v.strictObject({
  pdf: base64Member(v.pipe(v.string(), v.minLength(1, 'must be non-empty base64 data'))),
  password: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'))),
});

type CheckAccessibilityRequest = v.InferOutput<typeof CheckAccessibilityRequest>;

export const checkAccessibility = jsonTask(CheckAccessibilityRequest, async (request: CheckAccessibilityRequest): Promise<JsonResult> => {
  const bytes = decodePdfField(request.pdf, 'pdf', 2 ** 31);
  try {
    const report = await check(bytes, request.password);
    return { data: { standard: UA_STANDARD, ...report } };
  } catch (error) {
    if (!(error instanceof OpenFailure)) throw error;
    throw openFailure(error);
  }
}, { binaryFields: ['pdf'] });
