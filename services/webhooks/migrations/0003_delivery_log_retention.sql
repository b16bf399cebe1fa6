-- Finished deliveries are deleted after WEBHOOK_RETENTION_DAYS; a redelivery outlives the delivery
-- it sent again (it keeps its bytes and signature, and loses only the link).
ALTER TABLE delivery DROP CONSTRAINT delivery_redelivery_of_fkey;
ALTER TABLE delivery ADD CONSTRAINT delivery_redelivery_of_fkey FOREIGN KEY (redelivery_of) REFERENCES delivery (id) ON DELETE SET NULL;
-- What the clean-up walks: finished deliveries by completion time.
CREATE INDEX delivery_completed_idx ON delivery (completed_at) WHERE completed_at IS NOT NULL;
