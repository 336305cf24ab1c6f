Feature: Content search over the workspace
  As an agent backend
  I want to search file contents under the roots as a stream
  So that an agent can find code without a shell outside the sandbox

  # Every step runs against a live toolhost over gRPC (FileTools.SearchFiles).

  Scenario: A literal search streams matching lines, then a summary
    Given a skill file ops sandbox directory
    And a sandbox file "src/app.ts" with lines "import x,// TODO: fix,done"
    And a sandbox file "README.md" with content "no match here"
    When I search for "TODO"
    Then the search should return 1 match
    And a search match should be "src/app.ts" line 2 column 4
    And the search summary should say 2 files scanned, 1 file matched, 1 match

  Scenario: Ignored, hidden and binary files are skipped by default, and searched on request
    Given a skill file ops sandbox directory
    And a sandbox file ".gitignore" with content "build/"
    And a sandbox file "build/out.js" with content "needle"
    And a sandbox file ".env" with content "needle"
    And a sandbox file "main.js" with content "needle"
    And a binary file "blob.bin" in the sandbox
    When I search for "needle"
    Then the search should return matches in "main.js"
    When I search for "needle" including ignored and hidden files
    Then the search should return matches in ".env,build/out.js,main.js"

  Scenario: Include globs and the files-with-matches mode
    Given a skill file ops sandbox directory
    And a sandbox file "a.ts" with content "needle"
    And a sandbox file "b.js" with content "needle"
    When I search for "needle" in files matching "*.ts" listing only file names
    Then the search should list the files "a.ts"

  Scenario: A catastrophic regular expression ends with a clear error instead of hanging
    Given a skill file ops sandbox directory
    And a sandbox file "evil.txt" with content "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"
    When I search for the regular expression "(a+)+$" with a time budget of 300 ms
    Then the search error should be "PATTERN_TOO_COMPLEX"

  Scenario: A search never leaves the roots
    Given a skill file ops sandbox directory
    When I search "../" for "root"
    Then the search error should be "PATH_TRAVERSAL"
