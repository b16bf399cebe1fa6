import { CHANNEL_SCOPED } from '../../domain/access';
import type { ResourceRoute } from '../resource';
import { toSkuValidation } from './mapper';
import { EDGE_VALIDATE_SKUS } from './operation';

/** The request body, as the OpenAPI document (`SkuValidationRequest`) lets it through: 1-1000 SKUs of 1-255 characters. */
interface SkuValidationRequest {
  skus: string[];
}

export const validateSkus: ResourceRoute = {
  method: 'POST',
  path: '/products/validate-skus',
  operationId: 'validateSkus',
  access: CHANNEL_SCOPED,
  async handle({ gateway, body }) {
    const { skus } = body as SkuValidationRequest;
    // Each distinct SKU is asked once; every occurrence gets its answer, in request order.
    const distinct = [...new Set(skus)];
    const { validateSkus: answers } = await gateway(EDGE_VALIDATE_SKUS, { skus: distinct });
    const bySku = new Map(answers.map((a) => [a.sku, a]));
    const data = skus.map((sku) => {
      const answer = bySku.get(sku);
      if (!answer) throw new Error('The catalog did not answer for every SKU asked');
      return toSkuValidation(answer);
    });
    return { status: 200, body: { data } };
  },
};
