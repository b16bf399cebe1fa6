import { criteriaSql } from './order-page-repository';

describe('criteriaSql', () => {
  it('no criteria: no WHERE', () => {
    expect(criteriaSql({})).toEqual({ where: '', values: [] });
  });

  it('every criterion, ANDed, its values numbered in order', () => {
    const at = new Date('2026-11-27T00:00:00Z');
    expect(
      criteriaSql({
        teamCode: 'acme',
        channelId: 'acme-shop',
        origin: 'api',
        statuses: ['queued', 'draft'],
        orderNumber: 'PO-1',
        updatedSince: at,
        createdSince: at,
        updatedAfter: { at, uuid: '0f0e0d0c-0b0a-4908-8706-050403020100' },
        fulfillableStatuses: ['fulfillable'],
        confirmed: false,
      }),
    ).toEqual({
      where:
        'WHERE team_code = $1 AND channel_id = $2 AND origin = $3 AND status = ANY($4::text[]) AND order_number = $5' +
        ' AND updated_at >= $6::timestamptz AND created_at >= $7::timestamptz AND (updated_at, uuid) > ($8::timestamptz, $9::uuid)' +
        ' AND fulfillable_status = ANY($10::text[]) AND confirmed_at IS NULL',
      values: ['acme', 'acme-shop', 'api', ['queued', 'draft'], 'PO-1', at, at, at, '0f0e0d0c-0b0a-4908-8706-050403020100', ['fulfillable']],
    });
  });

  it('an empty list filters nothing; confirmed asks for a confirmedAt', () => {
    expect(criteriaSql({ statuses: [], fulfillableStatuses: [], confirmed: true })).toEqual({ where: 'WHERE confirmed_at IS NOT NULL', values: [] });
  });
});
