import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../src/contract/openapi';

/** A response as the tests see it. */
export interface ObservedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  contentType: string | undefined;
}

interface ResponseObject {
  description?: string;
  headers?: Record<string, { $ref?: string; required?: boolean; schema?: Record<string, unknown> }>;
  content?: Record<string, { schema?: Record<string, unknown> }>;
  $ref?: string;
}

/**
 * Checks responses against the OpenAPI document (ARCHITECTURE principle 6: tests check every
 * response against it): the status must be documented for the operation, every required header
 * present and well-formed, the content type documented and the body valid against its schema.
 */
export class ContractChecker {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: OpenApiDocument) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    // OpenAPI 3.0 schema objects are JSON Schema plus a few keywords ajv ignores with strict off.
    this.ajv.addSchema(doc as object, 'contract');
  }

  /** For an operation of the document (`GET`, `/token`). */
  check(method: string, path: string, res: ObservedResponse): void {
    const operation = this.doc.paths[path]?.[method.toLowerCase()] as { responses?: Record<string, ResponseObject> } | undefined;
    if (!operation?.responses) throw new Error(`${method} ${path} is not an operation of the document`);
    const response = operation.responses[String(res.status)] ?? operation.responses.default;
    if (!response) {
      throw new Error(`${method} ${path} does not document status ${res.status}; body: ${JSON.stringify(res.body)}`);
    }
    const pointer = response.$ref ?? `#/paths/${escape(path)}/${method.toLowerCase()}/responses/${res.status}`;
    this.checkResponse(`${method} ${path} ${res.status}`, pointer, res);
  }

  /** For answers outside any operation (unknown paths, wrong methods): a reusable response of the document. */
  checkComponentResponse(name: string, res: ObservedResponse): void {
    this.checkResponse(`${name} ${res.status}`, `#/components/responses/${name}`, res);
  }

  private checkResponse(label: string, pointer: string, res: ObservedResponse): void {
    const response = this.resolve<ResponseObject>(pointer);
    const failures: string[] = [];
    for (const [name, h] of Object.entries(response.headers ?? {})) {
      const header = h.$ref ? this.resolve<{ required?: boolean; schema?: Record<string, unknown> }>(h.$ref) : h;
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) failures.push(`missing header ${name}`);
        continue;
      }
      const text = Array.isArray(value) ? value.join(', ') : value;
      if (header.schema?.type === 'integer' && !/^\d+$/.test(text)) failures.push(`header ${name}: "${text}" is not an integer`);
      if (typeof header.schema?.pattern === 'string' && !new RegExp(header.schema.pattern).test(text)) {
        failures.push(`header ${name}: "${text}" does not match ${header.schema.pattern}`);
      }
    }
    if (response.content) {
      const mediaType = (res.contentType ?? '').split(';')[0]!.trim();
      const content = response.content[mediaType];
      if (!content) failures.push(`content type "${mediaType}" is not documented (${Object.keys(response.content).join(', ')})`);
      else if (content.schema) {
        const schemaPointer = `${pointer.replace(/^#/, '')}/content/${escape(mediaType)}/schema`;
        const validate = this.validator(response.content[mediaType]!.schema!.$ref as string | undefined ?? `contract#${schemaPointer}`);
        if (!validate(res.body)) failures.push(`body: ${this.ajv.errorsText(validate.errors)}; body was ${JSON.stringify(res.body)}`);
      }
    }
    if (failures.length) throw new Error(`${label} does not match the OpenAPI document:\n  ${failures.join('\n  ')}`);
  }

  private validator(ref: string): ValidateFunction {
    const full = ref.startsWith('#') ? `contract${ref}` : ref;
    let v = this.compiled.get(full);
    if (!v) {
      v = this.ajv.compile({ $ref: full });
      this.compiled.set(full, v);
    }
    return v;
  }

  private resolve<T>(pointer: string): T {
    let node: unknown = this.doc;
    for (const raw of pointer.replace(/^#\//, '').split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = (node as Record<string, unknown>)?.[key];
    }
    if (node === undefined) throw new Error(`${pointer} is not in the document`);
    const ref = (node as { $ref?: string }).$ref;
    return ref ? this.resolve<T>(ref) : (node as T);
  }
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
