{#- A copy of nbgrader 0.9.6's manage_submissions.tpl
    (BSD-3-Clause, Copyright (c) 2014 Project Jupyter Contributors) in an autoescaping
    environment, changed only where it puts values inside JavaScript strings (|tojson)
    and loads late_marks.js (it says how late a submission is) and student_names.js (names as
    the roster writes them) after nbgrader's script, and where it adds, above the list, the
    grading service's progress (drawn and kept up to date by grading_progress.js) -#}
{#- upstream-copy: nbgrader 0.9.6 nbgrader/server_extensions/formgrader/templates/manage_submissions.tpl sha256:b482829c57d325ea0b05eccab8a6e6aed8c4788171704783c1c297d3926dca75 -#}
{%- extends 'base.tpl' -%}

{%- block head -%}
<script>
var assignment_id = {{ assignment_id|tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_submissions.js"></script>
<script src="{{ base_url }}/formgrader/course_static/js/late_marks.js"></script>
<script src="{{ base_url }}/formgrader/course_static/js/student_names.js"></script>
<script src="{{ base_url }}/formgrader/course_static/js/grading_progress.js"></script>
{%- endblock head -%}

{%- block title -%}
Manage Submissions
{%- endblock -%}

{%- block sidebar -%}
<li role="presentation" class="active"><a href="{{ base_url }}/formgrader/manage_assignments">Manage Assignments</a></li>
<li role="presentation"><a href="{{ base_url }}/formgrader/gradebook">Manual Grading</a></li>
<li role="presentation"><a href="{{ base_url }}/formgrader/manage_students">Manage Students</a></li>
{%- endblock -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/manage_assignments">Assignments</a></li>
  <li class="active">{{ assignment_id }}</li>
</ol>
{%- endblock -%}

{%- block messages -%}
<div class="panel-group" id="accordion" role="tablist" aria-multiselectable="true">
  <div class="panel panel-default">
    <div class="panel-heading" role="tab" id="headingOne">
      <h4 class="panel-title">
        <a class="collapsed" role="button" data-toggle="collapse" data-parent="#accordion" href="#collapseOne" aria-expanded="false" aria-controls="collapseOne">
          Instructions (click to expand)
        </a>
      </h4>
    </div>
    <div id="collapseOne" class="panel-collapse collapse" role="tabpanel" aria-labelledby="headingOne">
      <div class="panel-body">
        <p>
          <b>Note:</b> Here you can autograde individual students' submissions by
          clicking on the autograde icons below. If you want to autograde
          all submissions at once, you will need to do this via the
          <a target="_blank" href="{{ base_url }}/terminals/1">command line</a>:
        </p>
        <p>
        <pre>
cd "{{ course_dir }}"
nbgrader autograde "{{ assignment_id }}"</pre>
        </p>
      </div>
    </div>
  </div>
</div>
<section class="panel panel-default" id="bpe-grading-progress" aria-labelledby="bpe-grading-progress-title">
  <div class="panel-heading">
    <h2 class="panel-title" id="bpe-grading-progress-title">Grading as submissions arrive</h2>
  </div>
  <div class="panel-body">
    <div id="bpe-progress-live" role="status" aria-live="polite">
      <p id="bpe-progress-line">Reading the grading service's queue&hellip;</p>
      <ul id="bpe-progress-counts" class="list-inline" aria-label="Entries by state"></ul>
      <div id="bpe-progress-failures"></div>
    </div>
    <p id="bpe-progress-wait"></p>
    <p class="text-muted small">Read again every 5 seconds; <code>make grading-status</code> in the course folder prints the same.</p>
  </div>
</section>
{%- endblock -%}

{%- block table_header -%}
<tr>
  <th>Student Name</th>
  <th class="text-center">Student ID</th>
  <th class="text-center">Timestamp</th>
  <th class="text-center">Status</th>
  <th class="text-center">Score</th>
  <th class="text-center no-sort">Autograde</th>
  <th class="text-center no-sort">Generate Feedback</th>
  <th class="text-center no-sort">Release Feedback</th>
</tr>
{%- endblock -%}

{%- block table_body -%}
<tr>
  <td>Loading, please wait...</td>
  <td></td>
  <td></td>
  <td></td>
  <td></td>
  <td></td>
  <td></td>
  <td></td>
</tr>
{%- endblock -%}
