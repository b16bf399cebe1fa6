-- A resend answers the webhook already waiting for the same order and type (same bytes, same
-- secret) instead of queueing another: this finds it among the channel's open resends.
CREATE INDEX delivery_open_resend_idx ON delivery (channel_id, order_uuid, notification_type)
  WHERE origin = 'resend' AND status IN ('pending', 'sending');
