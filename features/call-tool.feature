Feature: CallTool carries out a model's tool calls
  As an agent backend in any language
  I want to hand a model's tool call to toolhost as it came
  So that I write no name-to-RPC dispatch and no JSON-to-proto glue

  # Every call goes through toolhost.tools.v1.Tools/CallTool on a live server; the model sees a
  # refused call as a result with is_error, never as a transport failure.

  Background:
    Given a skill file ops sandbox directory
    And a sandbox file "notes.txt" with content "alpha\nbeta\n"
    And I remember the sandbox

  Scenario: A read comes back as numbered lines
    When the model calls "file_read" with arguments "{\"path\":\"notes.txt\"}"
    Then the tool result is not an error
    And the tool content contains "     1\talpha\n     2\tbeta\n"

  Scenario: The seed name works as well as the function name
    When the model calls "skill/file-read" with arguments "{\"path\":\"notes.txt\",\"offset\":1}"
    Then the tool result is not an error
    And the tool content contains "     2\tbeta"

  Scenario: A refused path is a result the model can read
    When the model calls "file_read" with arguments "{\"path\":\"../../etc/passwd\"}"
    Then the tool result is an error with reason "PATH_TRAVERSAL"
    And the tool content contains "Error (PATH_TRAVERSAL)"
    And nothing in the sandbox has changed

  Scenario: An unknown tool is a result that lists the tools there are
    When the model calls "file_teleport" with arguments "{}"
    Then the tool result is an error with reason "TOOL_NOT_FOUND"
    And the tool content contains "file_read"
    And the tool content contains "No tool named \"file_teleport\""

  Scenario: A missing field is refused with what to send
    When the model calls "file_write" with arguments "{\"text\":\"x\"}"
    Then the tool result is an error with reason "EMPTY_PATH"
    And the tool content contains "must not be empty"
    And nothing in the sandbox has changed

  Scenario: An extra field is refused
    When the model calls "file_write" with arguments "{\"path\":\"a.txt\",\"text\":\"x\",\"color\":\"red\"}"
    Then the tool result is an error with reason "INVALID_ARGUMENT"
    And the tool content contains "Bad arguments: "
    And the tool content contains "color"
    And nothing in the sandbox has changed

  Scenario: A wrong argument type is refused
    When the model calls "file_read" with arguments "{\"path\":\"notes.txt\",\"limit\":\"all\"}"
    Then the tool result is an error with reason "INVALID_ARGUMENT"
    And the tool content contains "Bad arguments"
    And the tool content contains "limit"

  Scenario: Arguments that are not JSON are refused
    When the model calls "file_read" with arguments "{\"path\":"
    Then the tool result is an error with reason "INVALID_ARGUMENT"
    And the tool content contains "not valid JSON"

  Scenario: An edit shows its diff
    When the model calls "file_edit" with arguments "{\"path\":\"notes.txt\",\"edits\":[{\"replace\":{\"oldText\":\"beta\",\"newText\":\"gamma\"}}]}"
    Then the tool result is not an error
    And the tool content contains "-beta\n+gamma"
    And the sandbox file "notes.txt" contains exactly "alpha\ngamma\n"

  Scenario: A skill is a tool, and calling it hands the model its instructions
    Given the server serves the example skills
    When the model calls "examples__deploy-to-staging" with arguments "{}"
    Then the tool result is not an error
    And the tool content contains "Skill examples/deploy-to-staging is active"
