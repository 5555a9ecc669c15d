{#- nbgrader's Manage Students page, with the course's script that shows each name as the
    roster writes it and a missing email as blank (static/js/student_names.js) loaded after
    nbgrader's own -#}
{%- extends 'nbgrader/manage_students.tpl' -%}

{%- block head -%}
{{ super() }}
<script src="{{ base_url }}/formgrader/course_static/js/student_names.js"></script>
{%- endblock head -%}
