import { logLevel } from 'kafkajs';
import { kafkaLineLevel } from './kafka';

describe('kafkaLineLevel', () => {
  it('logs a broker that cannot be reached as a warning: every such attempt is retried, and the retrying code reports it', () => {
    expect(kafkaLineLevel('Connection', logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe('warn');
    expect(kafkaLineLevel('BrokerPool', logLevel.ERROR, 'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe('warn');
  });

  it('keeps errors of the same namespaces that do not mend themselves at error level', () => {
    expect(kafkaLineLevel('Connection', logLevel.ERROR, 'Connection error: certificate has expired')).toBe('error');
    expect(kafkaLineLevel('Connection', logLevel.ERROR, 'Response Produce(key: 0, version: 7)')).toBe('error');
    expect(kafkaLineLevel('BrokerPool', logLevel.ERROR, 'SASL PLAIN authentication failed: Authentication failed')).toBe('error');
    expect(kafkaLineLevel('BrokerPool', logLevel.ERROR, new Error('Failed to connect: SASL'))).toBe('error');
    expect(kafkaLineLevel('BrokerPool', logLevel.ERROR, 'Failed to connect to seed broker, trying another broker from the list: Connection error: certificate has expired')).toBe('error');
    expect(kafkaLineLevel('Connection', logLevel.ERROR, 'Connection timeout')).toBe('warn');
    expect(kafkaLineLevel('Connection', logLevel.ERROR, 'Connection error: getaddrinfo ENOTFOUND kafka')).toBe('warn');
  });

  it('keeps the other errors at error level', () => {
    expect(kafkaLineLevel('Consumer', logLevel.ERROR, 'Crash: KafkaJSNonRetriableError')).toBe('error');
    expect(kafkaLineLevel('Producer', logLevel.ERROR, 'Failed to send messages')).toBe('error');
  });

  it('maps the other levels one to one and drops the idempotent producer\'s retry notice', () => {
    expect(kafkaLineLevel('Consumer', logLevel.WARN, 'x')).toBe('warn');
    expect(kafkaLineLevel('Consumer', logLevel.INFO, 'x')).toBe('info');
    expect(kafkaLineLevel('Consumer', logLevel.DEBUG, 'x')).toBe('debug');
    expect(kafkaLineLevel('Producer', logLevel.WARN, 'Limiting retries for the idempotent producer to Number.MAX_SAFE_INTEGER')).toBeNull();
  });
});
