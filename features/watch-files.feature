Feature: Change stream over the workspace
  As an agent backend
  I want to be told when files under the roots change
  So that an agent's view of the workspace stays current without polling

  # Every step runs against a live toolhost over gRPC (FileTools.WatchFiles).

  Scenario: A snapshot, a marker, then a created file
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "one"
    When I watch the sandbox recursively with a snapshot
    Then the watch should send "CREATED a.txt"
    And the watch should send "SNAPSHOT_DONE"
    When the sandbox file "b.txt" is written with "two"
    Then the watch should send "CREATED b.txt"

  Scenario: An atomic write through WriteFile is one modification
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "one"
    When I watch the sandbox recursively
    And I write "two" to "a.txt" with the file-write tool
    Then the watch should send "MODIFIED a.txt"
    And the watch should have sent nothing else

  Scenario: The stream ends when the watched folder is removed
    Given a skill file ops sandbox directory
    And a sandbox file "w/a.txt" with content "one"
    When I watch "w" recursively
    And the sandbox folder "w" is removed
    Then the watch should send "DELETED w/a.txt"
    And the watch should end without an error
