// A page's interactive form fields (AcroForm widgets), from pdf.js's
// annotation data: fully qualified name, type, value, options, box, flags.
// Field flags are ISO 32000-1, table 221: bit 1 ReadOnly, bit 2 Required.
import type { PdfPage } from '../seams/pdfjs.js';
import type { FieldType, FormField } from './types.js';

const READ_ONLY = 1;
const REQUIRED = 2;

interface WidgetData {
  readonly annotationType?: number;
  readonly subtype?: string;
  readonly fieldName?: string;
  readonly fieldType?: string | null;
  readonly fieldValue?: unknown;
  readonly fieldFlags?: number;
  readonly readOnly?: boolean;
  readonly required?: boolean;
  readonly rect?: readonly number[];
  readonly options?: readonly { exportValue?: unknown; displayValue?: unknown }[];
  readonly checkBox?: boolean;
  readonly radioButton?: boolean;
  readonly pushButton?: boolean;
  readonly exportValue?: unknown;
  readonly buttonValue?: unknown;
}

export async function formFields(page: PdfPage, display: readonly number[]): Promise<FormField[]> {
  const annotations = (await page.getAnnotations({ intent: 'display' })) as WidgetData[];
  const fields: FormField[] = [];
  for (const widget of annotations) {
    if (widget.subtype !== 'Widget' || typeof widget.fieldName !== 'string' || !Array.isArray(widget.rect)) continue;
    const type = fieldType(widget);
    if (type === null) continue;
    const flags = typeof widget.fieldFlags === 'number' ? widget.fieldFlags : 0;
    fields.push({
      name: widget.fieldName,
      type,
      value: valueOf(widget, type),
      options: (widget.options ?? []).map((option) => String(option.displayValue ?? option.exportValue ?? '')),
      ...box(widget.rect, display),
      required: widget.required === true || (flags & REQUIRED) !== 0,
      readOnly: widget.readOnly === true || (flags & READ_ONLY) !== 0,
    });
  }
  return fields;
}

function fieldType(widget: WidgetData): FieldType | null {
  switch (widget.fieldType) {
    case 'Tx':
      return 'text';
    case 'Ch':
      return 'choice';
    case 'Sig':
      return 'signature';
    case 'Btn':
      return widget.pushButton === true ? 'button' : widget.radioButton === true ? 'radio' : 'checkbox';
    default:
      return null;
  }
}

function valueOf(widget: WidgetData, type: FieldType): FormField['value'] {
  const value = widget.fieldValue;
  switch (type) {
    case 'checkbox':
      // On when the field's state is this widget's "on" appearance name.
      return typeof value === 'string' && value !== 'Off' && (widget.exportValue === undefined || value === widget.exportValue);
    case 'radio':
      return typeof value === 'string' && value !== 'Off' ? value : null;
    case 'choice':
      return Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value : null;
    case 'text':
      return typeof value === 'string' ? value : null;
    default:
      return null;
  }
}

function box(rect: readonly number[], display: readonly number[]): { x: number; y: number; width: number; height: number } {
  const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = rect;
  const corners = [apply(display, x1, y1), apply(display, x2, y2)];
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x: round(x), y: round(y), width: round(Math.max(...xs) - x), height: round(Math.max(...ys) - y) };
}

function apply(m: readonly number[], x: number, y: number): [number, number] {
  return [(m[0] as number) * x + (m[2] as number) * y + (m[4] as number), (m[1] as number) * x + (m[3] as number) * y + (m[5] as number)];
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
