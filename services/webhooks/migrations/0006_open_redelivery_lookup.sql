-- A redelivery of a failed delivery that is still waiting is answered to the next request for one
-- (a back-office double click queues one delivery, not two): found by the delivery it sends again.
CREATE INDEX delivery_open_redelivery_idx ON delivery (redelivery_of) WHERE redelivery_of IS NOT NULL AND status IN ('pending', 'sending');
