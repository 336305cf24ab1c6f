Feature: Skill many-files read tool and tail reads
  As a developer
  I want many files read in one call, and the end of a log without knowing its length
  So that agents spend one round trip on ten small files and never read a whole log for its tail

  # Every step runs against a live toolhost over gRPC (see features/support/world.ts).

  Scenario: ReadFiles answers every file, each with its own content or its own error
    Given a skill file ops sandbox directory
    And a sandbox file "a.txt" with content "alpha"
    And a sandbox file "lines.txt" with lines "l1,l2,l3,l4"
    And a binary file "image.png" in the sandbox
    And a sandbox subdirectory "mydir"
    When I execute the "skill/files-read" tool reading files:
      | path      | mode            | offset | limit | tail_lines | byte_offset | byte_limit |
      | a.txt     |                 |        |       |            |             |            |
      | ghost.txt |                 |        |       |            |             |            |
      | lines.txt |                 | 1      | 2     |            |             |            |
      | lines.txt |                 |        |       | 1          |             |            |
      | image.png |                 |        |       |            |             |            |
      | a.txt     | READ_MODE_BYTES |        |       |            | 1           | 3          |
      | ../x      |                 |        |       |            |             |            |
      | mydir     |                 |        |       |            |             |            |
      | a.txt     | 7               |        |       |            |             |            |
    Then the skill tool result should be successful
    And every file is answered in request order, each message naming its path
    And file 0 of the result should stream "info, text, summary"
    And file 0 of the result should have content "alpha"
    And file 1 of the result should fail mentioning "NOT_FOUND NOT_FOUND: "
    And file 1 of the result should fail mentioning "ghost.txt"
    And file 2 of the result should have content "l2\nl3\n"
    And file 3 of the result should have content "l4\n"
    And file 4 of the result should fail mentioning "BINARY_FILE FAILED_PRECONDITION: Binary file detected"
    And file 5 of the result should have content "lph"
    And file 6 of the result should fail mentioning "PATH_TRAVERSAL PERMISSION_DENIED: "
    And file 6 of the result should fail mentioning "traversal"
    And file 7 of the result should fail mentioning "NOT_A_REGULAR_FILE "
    And file 8 of the result should fail mentioning "INVALID_ARGUMENT INVALID_ARGUMENT: Invalid mode"

  Scenario: ReadFile tail_lines returns the last lines
    Given a skill file ops sandbox directory
    And a sandbox file "app.log" with lines "start,middle,almost,end"
    When I execute the "skill/file-read" tool with path "app.log" tail_lines 2
    Then the skill tool result should be successful
    And the skill output "content" should be "almost\nend\n"
    And the skill output "lines_sent" should equal 2

  Scenario: ReadFile tail_lines is not combined with a line range
    Given a skill file ops sandbox directory
    And a sandbox file "app.log" with lines "start,end"
    When I execute the "skill/file-read" tool with path "app.log" tail_lines 1 offset 1
    Then the skill tool result should not be successful
    And the skill tool error should mention "tail_lines cannot be combined"
