-- Orders entered in the merchant application or imported are found by their channel and number:
-- a number names one such order per channel (an import sent again must not make every order
-- twice). Not unique: orders of those origins written before the rule may share a number.
CREATE INDEX orders_merchant_order_number ON orders (channel_id, order_number) WHERE origin <> 'api';
