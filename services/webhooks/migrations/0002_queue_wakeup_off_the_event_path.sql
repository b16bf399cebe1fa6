-- The event consumer wakes its own process's delivery worker directly, and every other worker polls;
-- a NOTIFY from a trigger cost every queued event a third of its commit. The statements that queue
-- outside the event path (resend, redelivery, stock windows) still NOTIFY explicitly.
DROP TRIGGER delivery_queued ON delivery;
DROP FUNCTION notify_delivery_queued();
