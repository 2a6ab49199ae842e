import SetteeJSON
import Testing
@testable import SetteeReplicator

@Suite struct ReplicationSpecTests {
    /// Issue 47, item 5: `checkpoint_interval` was ignored (every job checkpointed on the
    /// 5 s default). CouchDB reads it in milliseconds, an integer or a string of one
    /// (`couch_replicator_parse:convert_options`).
    @Test func checkpointIntervalIsReadInMilliseconds() throws {
        let number = try ReplicationSpec(["source": "a", "target": "b", "checkpoint_interval": 300])
        #expect(number.options.checkpointInterval == .milliseconds(300))
        let text = try ReplicationSpec(["source": "a", "target": "b", "checkpoint_interval": "1500"])
        #expect(text.options.checkpointInterval == .milliseconds(1500))
        let absent = try ReplicationSpec(["source": "a", "target": "b"])
        #expect(absent.options.checkpointInterval == ReplicationOptions().checkpointInterval)
        #expect(number != absent)
    }

    @Test func aCheckpointIntervalThatIsNoIntegerIsRefused() {
        for bad: JSONValue in ["soon", 1.5, -1, true, ["ms": 300]] {
            #expect(throws: ReplicationError.invalidOption("parameter `checkpoint_interval` must be a non-negative integer")) {
                try ReplicationSpec(["source": "a", "target": "b", "checkpoint_interval": bad])
            }
        }
    }
}
